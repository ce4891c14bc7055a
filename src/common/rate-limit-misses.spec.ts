import { ManualClock } from './clock';
import { RateLimitMisses } from './rate-limit-misses';

describe('RateLimitMisses', () => {
  it('counts every miss and warns at most once per interval and remote, with the count since', () => {
    const clock = new ManualClock();
    const warnings: string[] = [];
    const counted: string[] = [];
    const misses = new RateLimitMisses(
      clock,
      { warn: (m) => warnings.push(m) },
      (r) => counted.push(r),
      60_000,
    );

    for (let i = 0; i < 5; i++) misses.record('hubspot', 'acme');
    misses.record('followupboss', 'bay');
    expect(counted).toEqual(['hubspot', 'hubspot', 'hubspot', 'hubspot', 'hubspot', 'followupboss']);
    expect(warnings).toHaveLength(2);

    clock.advance(30_000);
    misses.record('hubspot', 'acme');
    expect(warnings).toHaveLength(2);

    clock.advance(30_000);
    misses.record('hubspot', 'acme');
    expect(warnings).toHaveLength(3);
    // The four unlogged since the first line, and this one.
    expect(warnings[2]).toMatch(/^6 call\(s\) to hubspot answered 429 in the last 60 s/);
  });
});

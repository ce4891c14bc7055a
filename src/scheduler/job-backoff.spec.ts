import { JobBackoff, MAX_SKIPPED_TICKS } from './job-backoff';
import { jobKey } from './job-key';

const A = jobKey('a', 'marketplace');
const B = jobKey('b', 'marketplace');

describe('JobBackoff', () => {
  it('skips 1, 2, 4 ... ticks after consecutive failures and resets on success', () => {
    const backoff = new JobBackoff();
    const skippedAfter = (): number => {
      let skipped = 0;
      while (backoff.shouldSkip(A)) skipped += 1;
      return skipped;
    };
    backoff.recordFailure(A);
    expect(skippedAfter()).toBe(1);
    backoff.recordFailure(A);
    expect(skippedAfter()).toBe(2);
    backoff.recordFailure(A);
    expect(skippedAfter()).toBe(4);
    backoff.recordSuccess(A);
    expect(backoff.shouldSkip(A)).toBe(false);
    expect(backoff.state(A).consecutiveFailures).toBe(0);
  });

  it('caps the skipped ticks and keeps keys independent', () => {
    const backoff = new JobBackoff();
    for (let i = 0; i < 20; i++) backoff.recordFailure(A);
    expect(backoff.state(A).ticksToSkip).toBe(MAX_SKIPPED_TICKS);
    expect(backoff.shouldSkip(B)).toBe(false);
    backoff.forgetBrokerage('a');
    expect(backoff.shouldSkip(A)).toBe(false);
  });
});

import { longestCallMs } from './account-limiter.factory';
import { LONGEST_CALL_MS } from './rolling-window.limiter';

describe('longestCallMs: how long a turn whose call never settles holds its slots', () => {
  it('a client that stops its requests at a timeout: the timeout and a margin, here and across workers', () => {
    expect(longestCallMs({ timeoutMs: 10_000, abortsAtTimeout: true })).toEqual({
      local: 15_000,
      shared: 15_000,
    });
  });

  it('a client that only stops waiting: LONGEST_CALL_MS here; across workers, where only a dead worker leaves a turn open, the timeout and a margin', () => {
    expect(longestCallMs({ timeoutMs: 30_000, abortsAtTimeout: false })).toEqual({
      local: LONGEST_CALL_MS,
      shared: 35_000,
    });
  });

  it('no timeout known, or one past LONGEST_CALL_MS: LONGEST_CALL_MS', () => {
    const longest = { local: LONGEST_CALL_MS, shared: LONGEST_CALL_MS };
    expect(longestCallMs(undefined)).toEqual(longest);
    expect(longestCallMs({ timeoutMs: 0, abortsAtTimeout: true })).toEqual(longest);
    expect(longestCallMs({ timeoutMs: Number.NaN, abortsAtTimeout: true })).toEqual(longest);
    expect(longestCallMs({ timeoutMs: 10 * LONGEST_CALL_MS, abortsAtTimeout: true })).toEqual(longest);
  });
});

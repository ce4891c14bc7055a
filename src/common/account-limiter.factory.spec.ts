import { longestCallMs } from './account-limiter.factory';
import { LONGEST_CALL_MS } from './rolling-window.limiter';

describe('longestCallMs: how long a turn whose call never settles here holds its slot', () => {
  it('is the timeout and a margin for a client that aborts its requests', () => {
    expect(longestCallMs(10_000)).toBe(15_000);
  });

  it('is LONGEST_CALL_MS for a client that cannot stop its requests, or a timeout past it', () => {
    expect(longestCallMs(undefined)).toBe(LONGEST_CALL_MS);
    expect(longestCallMs(0)).toBe(LONGEST_CALL_MS);
    expect(longestCallMs(Number.NaN)).toBe(LONGEST_CALL_MS);
    expect(longestCallMs(10 * LONGEST_CALL_MS)).toBe(LONGEST_CALL_MS);
  });
});

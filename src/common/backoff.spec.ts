import { backoffDelayMs, type BackoffCurve } from './backoff';

const curve = (jitter: BackoffCurve['jitter']): BackoffCurve => ({ baseMs: 1_000, capMs: 10_000, jitter });

describe('backoffDelayMs', () => {
  it('doubles from the base per attempt up to the cap; none is the ceiling itself', () => {
    expect([1, 2, 3, 4, 5, 6].map((n) => backoffDelayMs(curve('none'), n))).toEqual([
      1_000, 2_000, 4_000, 8_000, 10_000, 10_000,
    ]);
  });

  it('full jitter is anywhere up to the ceiling, equal jitter in its upper half', () => {
    expect(backoffDelayMs(curve('full'), 3, { random: () => 0 })).toBe(0);
    expect(backoffDelayMs(curve('full'), 3, { random: () => 0.5 })).toBe(2_000);
    expect(backoffDelayMs(curve('equal'), 3, { random: () => 0 })).toBe(2_000);
    expect(backoffDelayMs(curve('equal'), 3, { random: () => 1 })).toBe(4_000);
  });

  it("never comes before the remote's Retry-After", () => {
    expect(backoffDelayMs(curve('full'), 1, { notBeforeMs: 90_000, random: () => 1 })).toBe(90_000);
    expect(backoffDelayMs(curve('none'), 5, { notBeforeMs: 1 })).toBe(10_000);
  });
});

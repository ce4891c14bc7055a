import { AdaptivePace } from './adaptive-pace';

describe('AdaptivePace', () => {
  const settings = { holdMs: 1000, recoverEveryMs: 5000 };

  it('is whole until a refusal', () => {
    expect(new AdaptivePace(10, settings).allowed(123_456)).toBe(10);
  });

  it('halves at a refusal, once a window, and never below one slot', () => {
    const pace = new AdaptivePace(10, settings);
    expect(pace.slowDown(0)).toEqual({ from: 10, to: 5 });
    // The calls already out at the old pace are refused too: not cut again.
    expect(pace.slowDown(999)).toBeUndefined();
    expect(pace.allowed(999)).toBe(5);
    expect(pace.slowDown(1000)).toEqual({ from: 5, to: 2 });
    expect(pace.slowDown(2000)).toEqual({ from: 2, to: 1 });
    expect(pace.slowDown(3000)).toEqual({ from: 1, to: 1 });
    expect(pace.allowed(3000)).toBe(1);
  });

  it('grows back one slot every recoverEveryMs without a refusal, up to the whole pace', () => {
    const pace = new AdaptivePace(10, settings);
    pace.slowDown(0);
    expect(pace.allowed(4999)).toBe(5);
    expect(pace.allowed(5000)).toBe(6);
    expect(pace.allowed(12_000)).toBe(7);
    // A refusal while it grows halves what it had grown to, and the growth starts again from there.
    expect(pace.slowDown(12_000)).toEqual({ from: 7, to: 3 });
    expect(pace.allowed(16_999)).toBe(3);
    expect(pace.allowed(17_000)).toBe(4);
    expect(pace.allowed(10 * 60_000)).toBe(10);
    // Whole again: the next refusal halves the whole pace.
    expect(pace.slowDown(10 * 60_000)).toEqual({ from: 10, to: 5 });
  });
});

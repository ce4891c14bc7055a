import { FixedWindowLimiter } from './rate.limiter';

describe('FixedWindowLimiter', () => {
  it('lets through the limit in each second, per key, and names the wait for the rest', () => {
    const limiter = new FixedWindowLimiter(2);
    const at = 1_000_000_250; // a quarter into a second
    expect(limiter.take('a', at)).toEqual({ allowed: true });
    expect(limiter.take('a', at + 10)).toEqual({ allowed: true });
    expect(limiter.take('a', at + 20)).toEqual({ allowed: false, retryAfterSeconds: 1 });
    // Another key has its own count.
    expect(limiter.take('b', at + 30)).toEqual({ allowed: true });
    // The next second starts a new count.
    expect(limiter.take('a', at + 750)).toEqual({ allowed: true });
  });
});

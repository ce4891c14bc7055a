// A gateway's steady rate limit (the `rateLimit` spec reading): at most `perSecond` calls per key in
// each second of the wall clock (a fixed window, as the simplest gateways count), the rest refused
// until the next second begins.
export class FixedWindowLimiter {
  private readonly windows = new Map<string, { second: number; calls: number }>();

  constructor(private readonly perSecond: number) {}

  // Whether this call of `key` at `nowMs` is let through; if not, the seconds to wait.
  take(key: string, nowMs: number): { allowed: true } | { allowed: false; retryAfterSeconds: number } {
    const second = Math.floor(nowMs / 1000);
    const window = this.windows.get(key);
    if (!window || window.second !== second) {
      // One entry per key: a second's count is of no use once the next one has begun.
      this.windows.set(key, { second, calls: 1 });
      return { allowed: true };
    }
    if (window.calls < this.perSecond) {
      window.calls += 1;
      return { allowed: true };
    }
    // The next second begins within one: Retry-After counts whole seconds.
    return { allowed: false, retryAfterSeconds: 1 };
  }
}

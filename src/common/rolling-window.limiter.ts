import { RateLimiterMemory, RateLimiterQueue } from 'rate-limiter-flexible';
import type { AccountLimit, SharedAccountLimiter } from './shared-account-limiter';

// Shorter sub-windows than this would be paced by the timers' 1 ms granularity, not the limit.
const MIN_SUB_WINDOW_MS = 10;

// How the fixed windows of rate-limiter-flexible's memory limiter are cut so that no rolling
// window of `intervalMs`, whatever its start, holds more than `max` calls (the remotes count
// rolling windows; `max` per fixed window would let `max` late in one and `max` early in the next
// through together).
// - Paced, one point per intervalMs/max: each call opens the next window, so calls are at least
//   intervalMs/max apart and any window of intervalMs holds at most max of them, at full rate
//   (as postgres-account-limiter.ts paces the shared budget). Used while that spacing is at least
//   MIN_SUB_WINDOW_MS.
// - Otherwise k sub-windows of intervalMs/k with floor(max/(k+1)) points each: a window of
//   intervalMs overlaps at most k+1 of them, so it holds at most max; the rate loses 1/(k+1).
// Durations are whole milliseconds, rounded up: the memory store ends a window with a timer, and
// timers truncate a fraction, which would end it early.
export function subWindows({ max, intervalMs }: AccountLimit): { points: number; durationMs: number } {
  if (intervalMs / max >= MIN_SUB_WINDOW_MS) return { points: 1, durationMs: Math.ceil(intervalMs / max) };
  const k = Math.max(1, Math.floor(intervalMs / MIN_SUB_WINDOW_MS));
  return { points: Math.max(1, Math.floor(max / (k + 1))), durationMs: Math.ceil(intervalMs / k) };
}

// One remote account's request budget in this process: callers queue for their turn instead of
// spending requests on 429s. With workers sharing a ledger, each call also takes a turn of the
// account's budget shared by all of them.
export class RollingWindowLimiter {
  private readonly queue: RateLimiterQueue;

  constructor(
    private readonly limit: AccountLimit,
    private readonly shared?: { limiter: SharedAccountLimiter; account: string },
  ) {
    const { points, durationMs } = subWindows(limit);
    this.queue = new RateLimiterQueue(new RateLimiterMemory({ points, duration: durationMs / 1000 }));
  }

  // Resolves when one more call may leave.
  async acquire(): Promise<void> {
    await this.queue.removeTokens(1);
    await this.shared?.limiter.acquire(this.shared.account, this.limit);
  }
}

import { RateLimiterMemory, RateLimiterQueue } from 'rate-limiter-flexible';
import type { RateLimit } from './rate-limit';
import type { SharedAccountLimiter } from './shared-account-limiter';

// One remote account's request budget in this process: callers queue for their turn instead of
// spending requests on 429s. With workers sharing a ledger, each call also takes a turn of the
// account's budget shared by all of them.
//
// The remotes count rolling windows and allow the whole burst at once (HubSpot's 429s name
// TEN_SECONDLY_ROLLING; FUB counts a sliding window). rate-limiter-flexible's memory limiter counts
// fixed windows, which would let `max` late in one window and `max` early in the next through
// together, and pacing one call per interval/max would give up the burst (a batch of 100 upserts at
// 190 per 10 s would take 5 s instead of at once). So the budget is `max` slots, each a fixed window
// of `intervalMs` opened by the call that takes it (one point), taken in turn: the (i+max)-th call
// takes the i-th call's slot and so leaves at least a window after it. That is a rolling window
// with its whole burst: `max` calls at once, then each as the call `max` places before it becomes
// a window old. Windows are whole milliseconds, rounded up: the store ends a window with a timer,
// and timers truncate a fraction, which would end it early.
export class RollingWindowLimiter {
  private readonly queue: RateLimiterQueue;
  private nextSlot = 0;

  constructor(
    private readonly limit: RateLimit,
    private readonly shared?: { limiter: SharedAccountLimiter; account: string },
  ) {
    const windowSeconds = Math.ceil(limit.intervalMs) / 1000;
    this.queue = new RateLimiterQueue(new RateLimiterMemory({ points: 1, duration: windowSeconds }));
  }

  // Resolves when one more call may leave.
  async acquire(): Promise<void> {
    const slot = this.nextSlot;
    this.nextSlot = (slot + 1) % Math.max(1, Math.floor(this.limit.max));
    await this.queue.removeTokens(1, `slot${slot}`);
    await this.shared?.limiter.acquire(this.shared.account, this.limit);
  }
}

// The daemon's one backoff curve: exponential from `baseMs`, doubling per attempt, capped at `capMs`.
// Retries whose state lives in the ledger (outbox commands, inbox events) and the in-process ones
// (webhook registration, a failing job's skipped cron ticks) all wait by it; what differs is only
// the numbers and how much jitter spreads retries that failed together. cockatiel covers retries
// inside one call; this covers retries across calls, runs and restarts, which no in-process retry
// library can hold.
//
// Jitter (AWS Architecture Blog, "Exponential Backoff and Jitter"):
// - `full`: uniformly random up to the ceiling (spreads most; inbox events, webhook registration);
// - `equal`: half the ceiling plus a random half (never retries almost at once; outbox commands);
// - `none`: the ceiling itself (counts, such as cron ticks to skip).
export type Jitter = 'full' | 'equal' | 'none';

export interface BackoffCurve {
  baseMs: number;
  capMs: number;
  jitter: Jitter;
}

export interface BackoffOptions {
  // The remote's own word (Retry-After): never retry sooner.
  notBeforeMs?: number;
  random?: () => number;
}

// `attempt` counts from 1: the wait after the first failure is at most `baseMs`.
export function backoffDelayMs(curve: BackoffCurve, attempt: number, options: BackoffOptions = {}): number {
  const random = options.random ?? Math.random;
  const ceiling = Math.min(curve.capMs, curve.baseMs * 2 ** Math.max(0, attempt - 1));
  const delay =
    curve.jitter === 'full'
      ? Math.floor(random() * ceiling)
      : curve.jitter === 'equal'
        ? ceiling / 2 + random() * (ceiling / 2)
        : ceiling;
  return Math.max(delay, options.notBeforeMs ?? 0);
}

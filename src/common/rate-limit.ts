// A remote account's request budget: at most `max` calls in any window of `intervalMs`. The one
// shape every limit is stated in: adapter and client options, their defaults, the limiters.
export interface RateLimit {
  max: number;
  intervalMs: number;
}

// Ends a turn a limiter gave: called once the call it let out has settled (answered, failed, or
// abandoned and then ended), which is after the remote counted it, if it ever did. Calling it
// again does nothing.
export type EndTurn = () => void;

// A budget of `max` calls per second: how brokerage files state a limit (`requestsPerSecond`).
export function perSecond(max: number): RateLimit {
  return { max, intervalMs: 1000 };
}

// The same budget counted over a window `marginMs` longer. The limiters time a window from the
// moment a call settled, which no arrival at the remote can follow, so the margin is slack for what
// that does not cover: the clocks of workers sharing a budget (each times its own calls' windows)
// and a remote that counts a little differently from its published window.
export function withMargin(limit: RateLimit, marginMs: number): RateLimit {
  return { max: limit.max, intervalMs: limit.intervalMs + marginMs };
}

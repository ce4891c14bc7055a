// A remote account's request budget: at most `max` calls in any window of `intervalMs`. The one
// shape every limit is stated in: adapter and client options, their defaults, the limiters.
export interface RateLimit {
  max: number;
  intervalMs: number;
}

// A budget of `max` calls per second: how brokerage files state a limit (`requestsPerSecond`).
export function perSecond(max: number): RateLimit {
  return { max, intervalMs: 1000 };
}

// The same budget counted over a window `marginMs` longer: a client that opens its windows as a
// call leaves, facing a remote that counts the call only when it arrives, keeps to the remote's
// window with this margin.
export function withMargin(limit: RateLimit, marginMs: number): RateLimit {
  return { max: limit.max, intervalMs: limit.intervalMs + marginMs };
}

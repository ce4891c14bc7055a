import pThrottle from 'p-throttle';
import type { ResolvedHubSpotOptions } from './hubspot.options';

export type RequestLane = 'general' | 'search';

// One portal's budget: the burst limit for most calls and the per-second limit of search.
// HubSpot counts both in rolling windows (its 429s name the policy TEN_SECONDLY_ROLLING), so the
// limiter is p-throttle's strict one: it lets the whole burst through at once, then each call
// only when the call `max` places before it is a full window old, so no window of any start ever
// holds more than `max`. Callers wait for their turn instead of spending requests on 429s.
export class HubSpotRateLimiter {
  private readonly general: () => Promise<void>;
  private readonly search: () => Promise<void>;

  constructor(options: Pick<ResolvedHubSpotOptions, 'rateLimit' | 'searchPerSecond' | 'rateLimitMarginMs'>) {
    // The margin covers the time between a call leaving here and HubSpot counting it.
    const margin = options.rateLimitMarginMs;
    this.general = rollingWindow(options.rateLimit.max, options.rateLimit.intervalMs + margin);
    this.search = rollingWindow(options.searchPerSecond, 1000 + margin);
  }

  acquire(lane: RequestLane): Promise<void> {
    return lane === 'search' ? this.search() : this.general();
  }
}

function rollingWindow(limit: number, interval: number): () => Promise<void> {
  return pThrottle({ limit, interval, strict: true })(() => undefined);
}

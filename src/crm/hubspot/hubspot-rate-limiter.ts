import { RateLimiterMemory, RateLimiterQueue } from 'rate-limiter-flexible';
import type { ResolvedHubSpotOptions } from './hubspot.options';

export type RequestLane = 'general' | 'search';

// One portal's budget: the burst limit for most calls and the per-second limit of search.
// Callers wait in a queue for a token instead of spending requests on 429s.
export class HubSpotRateLimiter {
  private readonly general: RateLimiterQueue;
  private readonly search: RateLimiterQueue;

  constructor(options: Pick<ResolvedHubSpotOptions, 'rateLimit' | 'searchPerSecond' | 'rateLimitMarginMs'>) {
    const margin = options.rateLimitMarginMs;
    this.general = new RateLimiterQueue(
      new RateLimiterMemory({
        points: options.rateLimit.max,
        duration: (options.rateLimit.intervalMs + margin) / 1000,
      }),
    );
    this.search = new RateLimiterQueue(
      new RateLimiterMemory({ points: options.searchPerSecond, duration: (1000 + margin) / 1000 }),
    );
  }

  async acquire(lane: RequestLane): Promise<void> {
    await (lane === 'search' ? this.search : this.general).removeTokens(1);
  }
}

import type { SharedAccountLimiter } from '../../common/shared-account-limiter';
import { RollingWindowLimiter } from '../../common/rolling-window.limiter';
import type { ResolvedHubSpotOptions } from './hubspot.options';

export type RequestLane = 'general' | 'search';

// One portal's budget: the burst limit for most calls and the per-second limit of search.
// HubSpot counts both in rolling windows (its 429s name the policy TEN_SECONDLY_ROLLING), so each
// lane is a RollingWindowLimiter: no window of any start holds more than `max` calls. Callers wait
// for their turn instead of spending requests on 429s. With workers sharing a ledger, each call
// also takes a turn of the portal's shared budget.
export class HubSpotRateLimiter {
  private readonly general: RollingWindowLimiter;
  private readonly search: RollingWindowLimiter;

  constructor(
    options: Pick<ResolvedHubSpotOptions, 'rateLimit' | 'searchPerSecond' | 'rateLimitMarginMs'>,
    // The portal's budget shared with other workers, and the key that names the portal there.
    shared?: { limiter: SharedAccountLimiter; portal: string },
  ) {
    // The margin covers the time between a call leaving here and HubSpot counting it.
    const margin = options.rateLimitMarginMs;
    const general = { max: options.rateLimit.max, intervalMs: options.rateLimit.intervalMs + margin };
    const search = { max: options.searchPerSecond, intervalMs: 1000 + margin };
    this.general = new RollingWindowLimiter(
      general,
      shared && { limiter: shared.limiter, account: `${shared.portal}:general` },
    );
    this.search = new RollingWindowLimiter(
      search,
      shared && { limiter: shared.limiter, account: `${shared.portal}:search` },
    );
  }

  acquire(lane: RequestLane): Promise<void> {
    return lane === 'search' ? this.search.acquire() : this.general.acquire();
  }
}

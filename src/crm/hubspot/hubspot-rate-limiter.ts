import pThrottle from 'p-throttle';
import type { AccountLimit, SharedAccountLimiter } from '../../common/shared-account-limiter';
import type { ResolvedHubSpotOptions } from './hubspot.options';

export type RequestLane = 'general' | 'search';

// One portal's budget: the burst limit for most calls and the per-second limit of search.
// HubSpot counts both in rolling windows (its 429s name the policy TEN_SECONDLY_ROLLING), so the
// limiter is p-throttle's strict one: it lets the whole burst through at once, then each call
// only when the call `max` places before it is a full window old, so no window of any start ever
// holds more than `max`. Callers wait for their turn instead of spending requests on 429s.
// With workers sharing a ledger, each call also takes a turn of the portal's shared budget.
export class HubSpotRateLimiter {
  private readonly general: () => Promise<void>;
  private readonly search: () => Promise<void>;

  constructor(
    options: Pick<ResolvedHubSpotOptions, 'rateLimit' | 'searchPerSecond' | 'rateLimitMarginMs'>,
    // The portal's budget shared with other workers, and the key that names the portal there.
    shared?: { limiter: SharedAccountLimiter; portal: string },
  ) {
    // The margin covers the time between a call leaving here and HubSpot counting it.
    const margin = options.rateLimitMarginMs;
    const general = { max: options.rateLimit.max, intervalMs: options.rateLimit.intervalMs + margin };
    const search = { max: options.searchPerSecond, intervalMs: 1000 + margin };
    this.general = lane(general, shared && { limiter: shared.limiter, account: `${shared.portal}:general` });
    this.search = lane(search, shared && { limiter: shared.limiter, account: `${shared.portal}:search` });
  }

  acquire(lane: RequestLane): Promise<void> {
    return lane === 'search' ? this.search() : this.general();
  }
}

function lane(
  limit: AccountLimit,
  shared?: { limiter: SharedAccountLimiter; account: string },
): () => Promise<void> {
  const local = pThrottle({ limit: limit.max, interval: limit.intervalMs, strict: true })(() => undefined);
  if (!shared) return local;
  return async () => {
    await local();
    await shared.limiter.acquire(shared.account, limit);
  };
}

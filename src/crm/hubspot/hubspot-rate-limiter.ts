import { accountLimiter, type AccountLimiter } from '../../common/account-limiter.factory';
import { withMargin, type EndTurn, type RateLimit } from '../../common/rate-limit';
import type { SharedAccountLimiter } from '../../common/shared-account-limiter';
import type { ResolvedHubSpotOptions } from './hubspot.options';

export type RequestLane = 'general' | 'search';

type LaneOptions = Pick<
  ResolvedHubSpotOptions,
  'rateLimit' | 'searchRateLimit' | 'rateLimitMarginMs' | 'requestTimeoutMs'
>;

// One portal's budget: the burst limit for most calls and the per-second limit of search, each a
// RateLimit of its own lane. HubSpot counts both in rolling windows from a call's arrival (its
// 429s name the policy TEN_SECONDLY_ROLLING), so each lane is an account limiter, whose windows
// run from a call's end: no window of any start, counted at HubSpot, holds more than `max` calls.
// Callers wait for their turn instead of spending requests on 429s. With workers sharing a ledger,
// each call also takes a turn of the portal's shared budget for its lane.
export class HubSpotRateLimiter {
  private readonly lanes: Record<RequestLane, AccountLimiter>;

  constructor(
    options: LaneOptions,
    // The portal's budget shared with other workers, and the key that names the portal there.
    shared?: { limiter: SharedAccountLimiter; portal: string },
  ) {
    // The margin is slack (rate-limit.ts withMargin): the windows already run from a call's end.
    const margin = options.rateLimitMarginMs;
    // Each lane is an account of its own in the shared budget (the key is read only there).
    const lane = (name: RequestLane, limit: RateLimit) =>
      accountLimiter(withMargin(limit, margin), `${shared?.portal ?? 'portal'}:${name}`, shared?.limiter, {
        timeoutMs: options.requestTimeoutMs,
        // The SDK's fetch cannot be stopped: the policy only stops waiting for it.
        abortsAtTimeout: false,
      });
    this.lanes = {
      general: lane('general', options.rateLimit),
      search: lane('search', options.searchRateLimit),
    };
  }

  acquire(lane: RequestLane): Promise<EndTurn> {
    return this.lanes[lane].acquire();
  }
}

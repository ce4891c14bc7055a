import type { SharedAccountLimiter } from '../../common/shared-account-limiter';
import { HubSpotRateLimiter } from './hubspot-rate-limiter';
import type { ResolvedHubSpotOptions } from './hubspot.options';

type LimitOptions = Pick<
  ResolvedHubSpotOptions,
  'rateLimit' | 'searchRateLimit' | 'rateLimitMarginMs' | 'requestTimeoutMs'
>;

// One budget per HubSpot portal in this process, whatever number of brokerages name it. HubSpot
// counts its limits per account (search: "five requests per second per account"), so 50 offices of
// one network on one portal share one search lane and one burst lane, not 50 of each. The portal
// is named by its base URL and a hash of its token (`accountKey`); workers sharing a PostgreSQL
// ledger add the shared-account limiter under the same key.
export class HubSpotPortalLimiters {
  private readonly byPortal = new Map<string, HubSpotRateLimiter>();

  constructor(private readonly shared?: SharedAccountLimiter) {}

  // The portal's limiter; the first brokerage to name a portal sets its limits (they are the
  // account's, so every brokerage file naming it should agree).
  forPortal(portal: string, options: LimitOptions): HubSpotRateLimiter {
    let limiter = this.byPortal.get(portal);
    if (!limiter) {
      limiter = new HubSpotRateLimiter(options, this.shared && { limiter: this.shared, portal });
      this.byPortal.set(portal, limiter);
    }
    return limiter;
  }

  get size(): number {
    return this.byPortal.size;
  }
}

import { perSecond, type RateLimit } from '../../common/rate-limit';
import {
  resolveCrmCallOptions,
  type CrmCallOptions,
  type CrmCallSettings,
  type ResolvedCrmCallOptions,
} from '../crm-call.settings';
import type { HubSpotPortalLimiters } from './hubspot-portal-limiters';
// Everything about the adapter a brokerage's config may change: the call settings every adapter
// has (crm-call.settings.ts; HubSpot's defaults below) and HubSpot's own. The burst limit
// (`rateLimit`) defaults to the account tier's, else the lowest tier's (Free/Starter, 100 per 10 s,
// crm-apis.md A8), safe on any account; explained in docs/crm-hubspot.md.
export interface HubSpotAdapterOptions extends CrmCallOptions {
  // Private-app token, read from the environment by the caller.
  accessToken: string;
  // https://api.hubapi.com unless pointed at the emulator.
  basePath?: string;
  // The HubSpot account's tier, which sets its burst limit when rateLimit is not given.
  accountTier?: HubSpotAccountTier;
  // The process's budgets by portal: adapters given the same registry and naming the same portal
  // (base URL and token) share one rate limiter. Without it the adapter keeps a budget of its own.
  portalLimiters?: HubSpotPortalLimiters;
  // The search lane: search requests per rolling window for this portal (default 5 per second).
  searchRateLimit?: RateLimit;
  // How long HubSpot's search index may take to show a write (default 60 s; HubSpot says "a few
  // moments"). The overlap window follows it.
  searchLagMs?: number;
  // How far before the cursor each incremental read starts again, to catch records the search
  // index had not shown yet (default: 5 minutes, or 2 × searchLagMs + 1 minute if that is longer;
  // never less than 2 × searchLagMs).
  overlapMs?: number;
  // Search page size, at most 200 (default 200).
  searchPageSize?: number;
  // Batches of writes in flight at once (default 4).
  writeConcurrency?: number;
  // Names the brokerage in the breaker's errors and logs.
  brokerageId?: string;
}

export type HubSpotAccountTier = 'free' | 'starter' | 'professional' | 'enterprise' | 'api-limit-increase';

// Burst limit per private app, per 10 s, by tier (HubSpot usage guidelines).
export const HUBSPOT_TIER_LIMITS: Record<HubSpotAccountTier, number> = {
  free: 100,
  starter: 100,
  professional: 190,
  enterprise: 190,
  'api-limit-increase': 250,
};

// The burst lane's budget on an account of this tier.
export function tierRateLimit(tier: HubSpotAccountTier = 'starter'): RateLimit {
  return { max: HUBSPOT_TIER_LIMITS[tier], intervalMs: 10_000 };
}

export type ResolvedHubSpotOptions = ResolvedCrmCallOptions & {
  accessToken: string;
  basePath?: string;
  portalLimiters?: HubSpotPortalLimiters;
  searchRateLimit: RateLimit;
  searchLagMs: number;
  overlapMs: number;
  searchPageSize: number;
  writeConcurrency: number;
  brokerageId?: string;
};

// HubSpot's call settings when a brokerage's config sets none; the burst limit is the account
// tier's when the config names one.
export const HUBSPOT_CALL_DEFAULTS: CrmCallSettings = {
  rateLimit: tierRateLimit(),
  rateLimitMarginMs: 250,
  requestTimeoutMs: 30_000,
  maxRateLimitRetries: 6,
  maxTransientRetries: 3,
  retryBaseDelayMs: 200,
  retryMaxDelayMs: 10_000,
  breaker: { consecutiveFailures: 10, halfOpenAfterMs: 30_000 },
};

// HubSpot's search limit, "five requests per second per account".
const DEFAULT_SEARCH_RATE_LIMIT = perSecond(5);
const DEFAULT_SEARCH_LAG_MS = 60_000;
const DEFAULT_OVERLAP_MS = 5 * 60_000;

// The overlap must outlast the lag: a record written just before a read shows in search only
// after the lag, with a time up to the lag before the cursor that read advanced to.
export function overlapFor(searchLagMs: number, overlapMs?: number): number {
  if (overlapMs !== undefined) return Math.max(overlapMs, 2 * searchLagMs);
  return Math.max(DEFAULT_OVERLAP_MS, 2 * searchLagMs + 60_000);
}

export function resolveHubSpotOptions(options: HubSpotAdapterOptions): ResolvedHubSpotOptions {
  return {
    ...resolveCrmCallOptions(options, {
      ...HUBSPOT_CALL_DEFAULTS,
      rateLimit: tierRateLimit(options.accountTier),
    }),
    accessToken: options.accessToken,
    basePath: options.basePath,
    portalLimiters: options.portalLimiters,
    searchRateLimit: options.searchRateLimit ?? DEFAULT_SEARCH_RATE_LIMIT,
    searchLagMs: options.searchLagMs ?? DEFAULT_SEARCH_LAG_MS,
    overlapMs: overlapFor(options.searchLagMs ?? DEFAULT_SEARCH_LAG_MS, options.overlapMs),
    searchPageSize: Math.min(options.searchPageSize ?? 200, 200),
    writeConcurrency: options.writeConcurrency ?? 4,
    brokerageId: options.brokerageId,
  };
}

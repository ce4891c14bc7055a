import type { SharedAccountLimiter } from '../../common/shared-account-limiter';
import type { HubSpotPortalLimiters } from './hubspot-portal-limiters';
// Everything about the adapter a brokerage's config may change. The rate limit defaults to the
// lowest tier's (Free/Starter, 100 per 10 s, crm-apis.md A8), safe on any account; explained in
// docs/crm-hubspot.md.
export interface HubSpotAdapterOptions {
  // Private-app token, read from the environment by the caller.
  accessToken: string;
  // https://api.hubapi.com unless pointed at the emulator.
  basePath?: string;
  // Requests per rolling window for this portal (default: the account tier's, else 100 per 10 s).
  rateLimit?: { max: number; intervalMs: number };
  // The HubSpot account's tier, which sets its burst limit when rateLimit is not given.
  accountTier?: HubSpotAccountTier;
  // The portal's budget shared with other workers (a PostgreSQL ledger), on top of this
  // process's own rolling window.
  sharedLimiter?: SharedAccountLimiter;
  // The process's budgets by portal: adapters given the same registry and naming the same portal
  // (base URL and token) share one rate limiter. Without it the adapter keeps a budget of its own.
  portalLimiters?: HubSpotPortalLimiters;
  // Told of each 429 the rate limiter should have prevented (the CRM refused a call it let out).
  onRateLimitMiss?: () => void;
  // Search requests per second for this portal (default 5).
  searchPerSecond?: number;
  // Added to the client's rolling window for the time between a call leaving and HubSpot counting it
  // (default 250 ms).
  rateLimitMarginMs?: number;
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
  // Give up waiting for one HTTP call after this long (default 30 s).
  requestTimeoutMs?: number;
  // 429 answers retried per call before RATE_LIMITED is returned (default 6).
  maxRateLimitRetries?: number;
  // 5xx / network failures retried per idempotent call (default 3).
  maxTransientRetries?: number;
  // Retry n waits a random time below min(retryMaxDelayMs, retryBaseDelayMs * 2^(n-1)), and never
  // less than the wait a 429 asks for (default 200 ms and 10 s).
  retryBaseDelayMs?: number;
  retryMaxDelayMs?: number;
  // The portal's circuit breaker: after `consecutiveFailures` attempts in a row with no answer or
  // a 5xx, calls fail at once with UNAVAILABLE until one is let through `halfOpenAfterMs` later
  // (default 10 and 30 s).
  breaker?: { consecutiveFailures?: number; halfOpenAfterMs?: number };
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

export type ResolvedHubSpotOptions = Required<
  Omit<
    HubSpotAdapterOptions,
    | 'basePath'
    | 'accountTier'
    | 'sharedLimiter'
    | 'portalLimiters'
    | 'onRateLimitMiss'
    | 'breaker'
    | 'brokerageId'
  >
> & {
  basePath?: string;
  sharedLimiter?: SharedAccountLimiter;
  portalLimiters?: HubSpotPortalLimiters;
  onRateLimitMiss?: () => void;
  breaker: { consecutiveFailures: number; halfOpenAfterMs: number };
  brokerageId?: string;
};

export const HUBSPOT_BREAKER_DEFAULTS = { consecutiveFailures: 10, halfOpenAfterMs: 30_000 } as const;

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
    accessToken: options.accessToken,
    basePath: options.basePath,
    sharedLimiter: options.sharedLimiter,
    portalLimiters: options.portalLimiters,
    onRateLimitMiss: options.onRateLimitMiss,
    rateLimit: options.rateLimit ?? {
      max: HUBSPOT_TIER_LIMITS[options.accountTier ?? 'starter'],
      intervalMs: 10_000,
    },
    searchPerSecond: options.searchPerSecond ?? 5,
    rateLimitMarginMs: options.rateLimitMarginMs ?? 250,
    searchLagMs: options.searchLagMs ?? DEFAULT_SEARCH_LAG_MS,
    overlapMs: overlapFor(options.searchLagMs ?? DEFAULT_SEARCH_LAG_MS, options.overlapMs),
    searchPageSize: Math.min(options.searchPageSize ?? 200, 200),
    writeConcurrency: options.writeConcurrency ?? 4,
    requestTimeoutMs: options.requestTimeoutMs ?? 30_000,
    maxRateLimitRetries: options.maxRateLimitRetries ?? 6,
    maxTransientRetries: options.maxTransientRetries ?? 3,
    retryBaseDelayMs: options.retryBaseDelayMs ?? 200,
    retryMaxDelayMs: options.retryMaxDelayMs ?? 10_000,
    breaker: { ...HUBSPOT_BREAKER_DEFAULTS, ...options.breaker },
    brokerageId: options.brokerageId,
  };
}

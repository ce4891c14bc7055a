import type { SharedAccountLimiter } from '../../common/shared-account-limiter';
// Everything about the Follow Up Boss adapter a brokerage's config may change. Defaults follow
// FUB's documented limits (crm-apis.md B4/B6) and are explained in docs/crm-followupboss.md.
export interface FollowUpBossAdapterOptions {
  // The account's API key (HTTP Basic user name), read from the environment by the caller.
  apiKey: string;
  // https://api.followupboss.com unless pointed at the emulator; `/v1` is added.
  baseUrl?: string;
  // The registered system's name and key, sent as X-System / X-System-Key on every call.
  system?: string;
  systemKey?: string;
  // Requests per sliding window for this account (default 250 per 10 s, FUB's global context for
  // a registered system).
  rateLimit?: { max: number; intervalMs: number };
  // The account's budget shared with other workers (a PostgreSQL ledger), on top of this
  // process's own sliding window.
  sharedLimiter?: SharedAccountLimiter;
  // Told of each 429 the rate limiter should have prevented.
  onRateLimitMiss?: () => void;
  // Added to the client's window for the time between a call leaving and FUB counting it.
  rateLimitMarginMs?: number;
  // How far before the cursor each incremental read starts again (default 5 minutes).
  overlapMs?: number;
  // List page size, at most 100 (default 100).
  pageSize?: number;
  // Records written at once (default 4).
  writeConcurrency?: number;
  // Give up waiting for one HTTP call after this long (default 30 s).
  requestTimeoutMs?: number;
  // 429 answers retried per call before RATE_LIMITED is returned (default 6).
  maxRateLimitRetries?: number;
  // 5xx / network failures retried per idempotent call (default 3).
  maxTransientRetries?: number;
  // Retry n waits a random time below min(retryMaxDelayMs, retryBaseDelayMs * 2^(n-1)) (FUB
  // recommends 1, 2, 4 s with jitter), and never less than a 429's Retry-After (default 1 s and 10 s).
  retryBaseDelayMs?: number;
  retryMaxDelayMs?: number;
  // The account's circuit breaker: after `consecutiveFailures` attempts in a row with no answer or
  // a 5xx, calls fail at once with UNAVAILABLE until one is let through `halfOpenAfterMs` later
  // (default 10 and 30 s).
  breaker?: { consecutiveFailures?: number; halfOpenAfterMs?: number };
  // Names the brokerage in the breaker's errors and logs.
  brokerageId?: string;
}

export type ResolvedFollowUpBossOptions = Required<
  Omit<
    FollowUpBossAdapterOptions,
    'system' | 'systemKey' | 'sharedLimiter' | 'onRateLimitMiss' | 'breaker' | 'brokerageId'
  >
> & {
  system?: string;
  systemKey?: string;
  sharedLimiter?: SharedAccountLimiter;
  onRateLimitMiss?: () => void;
  breaker: { consecutiveFailures: number; halfOpenAfterMs: number };
  brokerageId?: string;
};

export const FOLLOWUPBOSS_BREAKER_DEFAULTS = { consecutiveFailures: 10, halfOpenAfterMs: 30_000 } as const;

export const FOLLOWUPBOSS_API = 'https://api.followupboss.com';

export function resolveFollowUpBossOptions(options: FollowUpBossAdapterOptions): ResolvedFollowUpBossOptions {
  return {
    apiKey: options.apiKey,
    baseUrl: (options.baseUrl ?? FOLLOWUPBOSS_API).replace(/\/+$/, ''),
    system: options.system ?? 'cash-offer-sync',
    systemKey: options.systemKey,
    sharedLimiter: options.sharedLimiter,
    onRateLimitMiss: options.onRateLimitMiss,
    rateLimit: options.rateLimit ?? { max: 250, intervalMs: 10_000 },
    rateLimitMarginMs: options.rateLimitMarginMs ?? 250,
    overlapMs: options.overlapMs ?? 5 * 60_000,
    pageSize: Math.min(options.pageSize ?? 100, 100),
    writeConcurrency: options.writeConcurrency ?? 4,
    requestTimeoutMs: options.requestTimeoutMs ?? 30_000,
    maxRateLimitRetries: options.maxRateLimitRetries ?? 6,
    maxTransientRetries: options.maxTransientRetries ?? 3,
    retryBaseDelayMs: options.retryBaseDelayMs ?? 1000,
    retryMaxDelayMs: options.retryMaxDelayMs ?? 10_000,
    breaker: { ...FOLLOWUPBOSS_BREAKER_DEFAULTS, ...options.breaker },
    brokerageId: options.brokerageId,
  };
}

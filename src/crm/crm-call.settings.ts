import type { RateLimit } from '../common/rate-limit';
import type { SharedAccountLimiter } from '../common/shared-account-limiter';

// How one CRM account is called, declared here once for every adapter; each adapter states only
// its defaults (HUBSPOT_CALL_DEFAULTS, FOLLOWUPBOSS_CALL_DEFAULTS), explained in its docs page.
export interface CrmCallSettings {
  // Requests per rolling window for the account (HubSpot: its burst lane).
  rateLimit: RateLimit;
  // Added to the client's window as slack (the window already runs from a call's end, which no
  // arrival at the CRM can follow): workers' clocks, a CRM counting a little off its window.
  rateLimitMarginMs: number;
  // Give up waiting for one HTTP call after this long.
  requestTimeoutMs: number;
  // 429 answers retried per call before RATE_LIMITED is returned.
  maxRateLimitRetries: number;
  // 5xx / network failures retried per idempotent call.
  maxTransientRetries: number;
  // Retry n waits a random time below min(retryMaxDelayMs, retryBaseDelayMs * 2^(n-1)), and never
  // less than the wait a 429 asks for.
  retryBaseDelayMs: number;
  retryMaxDelayMs: number;
  // The account's circuit breaker: after `consecutiveFailures` attempts in a row with no answer or
  // a 5xx, calls fail at once with UNAVAILABLE until one is let through `halfOpenAfterMs` later.
  breaker: { consecutiveFailures: number; halfOpenAfterMs: number };
}

// The hooks the daemon gives every adapter, beside its settings.
export interface CrmCallHooks {
  // The account's budget shared with other workers (a PostgreSQL ledger), on top of this
  // process's own rolling window.
  sharedLimiter?: SharedAccountLimiter;
  // Told of each 429 the rate limiter should have prevented (the CRM refused a call it let out).
  onRateLimitMiss?: () => void;
}

// What an adapter's options may set: any setting (the rest are the adapter's defaults), and the hooks.
export type CrmCallOptions = Partial<Omit<CrmCallSettings, 'breaker'>> & {
  breaker?: Partial<CrmCallSettings['breaker']>;
} & CrmCallHooks;

// What the call policy reads of them (the rate limit is the limiter's).
export type CrmPolicySettings = Omit<CrmCallSettings, 'rateLimit' | 'rateLimitMarginMs'>;

export type ResolvedCrmCallOptions = CrmCallSettings & CrmCallHooks;

// The settings `options` gives, the adapter's `defaults` for the rest.
export function resolveCrmCallOptions(
  options: CrmCallOptions,
  defaults: CrmCallSettings,
): ResolvedCrmCallOptions {
  return {
    rateLimit: options.rateLimit ?? defaults.rateLimit,
    rateLimitMarginMs: options.rateLimitMarginMs ?? defaults.rateLimitMarginMs,
    requestTimeoutMs: options.requestTimeoutMs ?? defaults.requestTimeoutMs,
    maxRateLimitRetries: options.maxRateLimitRetries ?? defaults.maxRateLimitRetries,
    maxTransientRetries: options.maxTransientRetries ?? defaults.maxTransientRetries,
    retryBaseDelayMs: options.retryBaseDelayMs ?? defaults.retryBaseDelayMs,
    retryMaxDelayMs: options.retryMaxDelayMs ?? defaults.retryMaxDelayMs,
    breaker: { ...defaults.breaker, ...options.breaker },
    sharedLimiter: options.sharedLimiter,
    onRateLimitMiss: options.onRateLimitMiss,
  };
}

import type { RateLimit } from '../common/rate-limit';
import { accountKey, type SharedAccountLimiter } from '../common/shared-account-limiter';
// What one brokerage's client is built from. Every field but the first three has a default.
export interface CashOfferCallEvent {
  brokerageId: string;
  operation: string;
  status: number | 'network_error';
  durationMs: number;
  // 1 for the first try, 2 for the first retry...
  attempt: number;
  // The answer refused the API key itself (a 401, or another 4xx that said so).
  keyRefused?: boolean;
}

export interface CashOfferClientOptions {
  brokerageId: string;
  // The service's base address; it already ends in /api/v2.
  baseUrl: string;
  apiKey: string;
  timeoutMs?: number;
  // Calls per rolling window for the API key (default 10 per second).
  rateLimit?: RateLimit;
  // The API key's budget shared with other workers (a PostgreSQL ledger), on top of this
  // process's own limiter.
  sharedLimiter?: SharedAccountLimiter;
  retry?: {
    // Total tries of one call that fails for want of the service (a 5xx, no answer), the first
    // included.
    maxAttempts?: number;
    // Total tries of one call the service keeps refusing as over its rate limit (429), the first
    // included: more than maxAttempts, as a 429 did nothing and the key's pace slows at each.
    maxRateLimitedAttempts?: number;
    baseDelayMs?: number;
    maxDelayMs?: number;
    // A Retry-After longer than this is not waited out in process: the call fails RATE_LIMITED
    // (or UNAVAILABLE) with `retryAfterMs`, for the caller to schedule.
    maxRetryAfterMs?: number;
  };
  breaker?: { consecutiveFailures?: number; halfOpenAfterMs?: number };
  // Called after every HTTP attempt, for metrics. Errors it throws are ignored.
  onCall?: (event: CashOfferCallEvent) => void;
}

export interface ResolvedClientOptions {
  brokerageId: string;
  baseUrl: string;
  timeoutMs: number;
  rateLimit: RateLimit;
  sharedLimiter?: SharedAccountLimiter;
  // Names the API key's account in the shared budget, without the key.
  account: string;
  retry: {
    maxAttempts: number;
    maxRateLimitedAttempts: number;
    baseDelayMs: number;
    maxDelayMs: number;
    maxRetryAfterMs: number;
  };
  breaker: { consecutiveFailures: number; halfOpenAfterMs: number };
  onCall?: (event: CashOfferCallEvent) => void;
}

export const CLIENT_DEFAULTS = {
  timeoutMs: 10_000,
  rateLimit: { max: 10, intervalMs: 1000 },
  retry: {
    maxAttempts: 5,
    maxRateLimitedAttempts: 9,
    baseDelayMs: 500,
    maxDelayMs: 30_000,
    maxRetryAfterMs: 60_000,
  },
  breaker: { consecutiveFailures: 5, halfOpenAfterMs: 30_000 },
} as const;

function positive(name: string, value: number, brokerageId: string): number {
  if (!Number.isFinite(value) || value <= 0)
    throw new Error(`Cash Offer client of brokerage ${brokerageId}: ${name} must be a positive number`);
  return value;
}

// Fills defaults and checks values; the API key is kept out of the result on purpose.
export function resolveClientOptions(options: CashOfferClientOptions): ResolvedClientOptions {
  const id = options.brokerageId;
  if (!id) throw new Error('Cash Offer client: brokerageId is required');
  if (!options.apiKey) throw new Error(`Cash Offer client of brokerage ${id}: apiKey is required`);
  let url: URL;
  try {
    url = new URL(options.baseUrl);
  } catch {
    throw new Error(`Cash Offer client of brokerage ${id}: baseUrl is not an absolute URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Error(`Cash Offer client of brokerage ${id}: baseUrl must be http(s)`);
  const retry = { ...CLIENT_DEFAULTS.retry, ...options.retry };
  const breaker = { ...CLIENT_DEFAULTS.breaker, ...options.breaker };
  const rateLimit = options.rateLimit ?? CLIENT_DEFAULTS.rateLimit;
  return {
    brokerageId: id,
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    timeoutMs: positive('timeoutMs', options.timeoutMs ?? CLIENT_DEFAULTS.timeoutMs, id),
    rateLimit: {
      max: Math.floor(positive('rateLimit.max', rateLimit.max, id)),
      intervalMs: positive('rateLimit.intervalMs', rateLimit.intervalMs, id),
    },
    sharedLimiter: options.sharedLimiter,
    account: accountKey('cash-offer', options.baseUrl.replace(/\/+$/, ''), options.apiKey),
    retry: {
      maxAttempts: Math.floor(positive('retry.maxAttempts', retry.maxAttempts, id)),
      maxRateLimitedAttempts: Math.floor(
        positive('retry.maxRateLimitedAttempts', retry.maxRateLimitedAttempts, id),
      ),
      baseDelayMs: positive('retry.baseDelayMs', retry.baseDelayMs, id),
      maxDelayMs: positive('retry.maxDelayMs', retry.maxDelayMs, id),
      maxRetryAfterMs: retry.maxRetryAfterMs,
    },
    breaker: {
      consecutiveFailures: Math.floor(
        positive('breaker.consecutiveFailures', breaker.consecutiveFailures, id),
      ),
      halfOpenAfterMs: positive('breaker.halfOpenAfterMs', breaker.halfOpenAfterMs, id),
    },
    onCall: options.onCall,
  };
}

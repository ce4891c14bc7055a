import {
  resolveCrmCallOptions,
  type CrmCallOptions,
  type CrmCallSettings,
  type ResolvedCrmCallOptions,
} from '../crm-call.settings';
// Everything about the Follow Up Boss adapter a brokerage's config may change: the call settings
// every adapter has (crm-call.settings.ts; FUB's defaults below) and FUB's own. Defaults follow
// FUB's documented limits (crm-apis.md B4/B6) and are explained in docs/crm-followupboss.md.
export interface FollowUpBossAdapterOptions extends CrmCallOptions {
  // The account's API key (HTTP Basic user name), read from the environment by the caller.
  apiKey: string;
  // https://api.followupboss.com unless pointed at the emulator; `/v1` is added.
  baseUrl?: string;
  // The registered system's name and key, sent as X-System / X-System-Key on every call.
  system?: string;
  systemKey?: string;
  // How far before the cursor each incremental read starts again (default 5 minutes).
  overlapMs?: number;
  // List page size, at most 100 (default 100).
  pageSize?: number;
  // Records written at once (default 4).
  writeConcurrency?: number;
  // Names the brokerage in the breaker's errors and logs.
  brokerageId?: string;
}

export type ResolvedFollowUpBossOptions = ResolvedCrmCallOptions & {
  apiKey: string;
  baseUrl: string;
  system?: string;
  systemKey?: string;
  overlapMs: number;
  pageSize: number;
  writeConcurrency: number;
  brokerageId?: string;
};

// FUB's call settings when a brokerage's config sets none: 250 requests per sliding 10 s (FUB's
// global context for a registered system); retries 1, 2, 4 s with jitter, as FUB recommends.
export const FOLLOWUPBOSS_CALL_DEFAULTS: CrmCallSettings = {
  rateLimit: { max: 250, intervalMs: 10_000 },
  rateLimitMarginMs: 250,
  requestTimeoutMs: 30_000,
  maxRateLimitRetries: 6,
  maxTransientRetries: 3,
  retryBaseDelayMs: 1000,
  retryMaxDelayMs: 10_000,
  breaker: { consecutiveFailures: 10, halfOpenAfterMs: 30_000 },
};

export const FOLLOWUPBOSS_API = 'https://api.followupboss.com';

export function resolveFollowUpBossOptions(options: FollowUpBossAdapterOptions): ResolvedFollowUpBossOptions {
  return {
    ...resolveCrmCallOptions(options, FOLLOWUPBOSS_CALL_DEFAULTS),
    apiKey: options.apiKey,
    baseUrl: (options.baseUrl ?? FOLLOWUPBOSS_API).replace(/\/+$/, ''),
    system: options.system ?? 'cash-offer-sync',
    systemKey: options.systemKey,
    overlapMs: options.overlapMs ?? 5 * 60_000,
    pageSize: Math.min(options.pageSize ?? 100, 100),
    writeConcurrency: options.writeConcurrency ?? 4,
    brokerageId: options.brokerageId,
  };
}

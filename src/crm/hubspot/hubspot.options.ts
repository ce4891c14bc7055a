// Everything about the adapter a brokerage's config may change. Defaults follow HubSpot's
// Professional/Enterprise private-app limits (crm-apis.md A8) and are explained in docs/crm-hubspot.md.
export interface HubSpotAdapterOptions {
  // Private-app token, read from the environment by the caller.
  accessToken: string;
  // https://api.hubapi.com unless pointed at the emulator.
  basePath?: string;
  // Requests per rolling window for this portal (default 190 per 10 s).
  rateLimit?: { max: number; intervalMs: number };
  // Search requests per second for this portal (default 5).
  searchPerSecond?: number;
  // Added to the client's rolling window for the time between a call leaving and HubSpot counting it
  // (default 250 ms).
  rateLimitMarginMs?: number;
  // How far before the cursor each incremental read starts again, to catch records the search
  // index had not shown yet (default 5 minutes).
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
}

export type ResolvedHubSpotOptions = Required<Omit<HubSpotAdapterOptions, 'basePath'>> & {
  basePath?: string;
};

export function resolveHubSpotOptions(options: HubSpotAdapterOptions): ResolvedHubSpotOptions {
  return {
    accessToken: options.accessToken,
    basePath: options.basePath,
    rateLimit: options.rateLimit ?? { max: 190, intervalMs: 10_000 },
    searchPerSecond: options.searchPerSecond ?? 5,
    rateLimitMarginMs: options.rateLimitMarginMs ?? 250,
    overlapMs: options.overlapMs ?? 5 * 60_000,
    searchPageSize: Math.min(options.searchPageSize ?? 200, 200),
    writeConcurrency: options.writeConcurrency ?? 4,
    requestTimeoutMs: options.requestTimeoutMs ?? 30_000,
    maxRateLimitRetries: options.maxRateLimitRetries ?? 6,
    maxTransientRetries: options.maxTransientRetries ?? 3,
  };
}

import { Logger } from '@nestjs/common';
import { CrmError } from '../crm.error';
import { toCrmError } from './hubspot-error.mapper';
import type { HubSpotRateLimiter, RequestLane } from './hubspot-rate-limiter';
import type { ResolvedHubSpotOptions } from './hubspot.options';

export type Sleep = (ms: number) => Promise<void>;
const defaultSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export interface CallSpec {
  // What is being done, in words for error messages: "upsert 100 deals".
  what: string;
  lane: RequestLane;
  // Safe to send again when the outcome is unknown (reads, upserts by key, updates).
  idempotent: boolean;
}

// Every HubSpot call goes through here: the portal's rate limit, a timeout, and the only retry
// layer (the SDK's numberOfApiCallRetries stays off, so two layers never retry blindly).
export class HubSpotRequestRunner {
  private readonly logger = new Logger('HubSpotCrmAdapter');
  calls = 0;

  constructor(
    private readonly limiter: HubSpotRateLimiter,
    private readonly options: Pick<
      ResolvedHubSpotOptions,
      'requestTimeoutMs' | 'maxRateLimitRetries' | 'maxTransientRetries'
    >,
    private readonly sleep: Sleep = defaultSleep,
  ) {}

  async run<T>(spec: CallSpec, call: () => Promise<T>): Promise<T> {
    let rateLimited = 0;
    let transient = 0;
    for (;;) {
      await this.limiter.acquire(spec.lane);
      this.calls++;
      let error: CrmError;
      try {
        return await this.withTimeout(call(), spec.what);
      } catch (caught) {
        error = toCrmError(caught, spec.what);
      }
      // A 429 means HubSpot did not act on the request, so it is safe to send again for any call.
      if (
        error.code === 'RATE_LIMITED' &&
        error.retryAfterMs !== undefined &&
        rateLimited < this.options.maxRateLimitRetries
      ) {
        rateLimited++;
        const wait = jitter(error.retryAfterMs * 2 ** (rateLimited - 1));
        this.logger.warn(
          `${spec.what}: rate limited by HubSpot, waiting ${wait} ms (attempt ${rateLimited})`,
        );
        await this.sleep(wait);
        continue;
      }
      if (error.code === 'UNAVAILABLE' && spec.idempotent && transient < this.options.maxTransientRetries) {
        transient++;
        const wait = jitter(200 * 2 ** (transient - 1));
        this.logger.warn(`${spec.what}: ${error.message}; retrying in ${wait} ms`);
        await this.sleep(wait);
        continue;
      }
      throw error;
    }
  }

  private async withTimeout<T>(promise: Promise<T>, what: string): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new CrmError(
              'UNAVAILABLE',
              `${what}: no answer from HubSpot within ${this.options.requestTimeoutMs} ms`,
            ),
          ),
        this.options.requestTimeoutMs,
      );
    });
    try {
      return await Promise.race([promise, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
}

// Up to a quarter more, so parallel callers do not come back in step.
function jitter(ms: number): number {
  return Math.round(ms * (1 + Math.random() * 0.25));
}

import { Logger } from '@nestjs/common';
import axios, { type AxiosInstance, type Method } from 'axios';
import pThrottle from 'p-throttle';
import { accountKey } from '../../common/shared-account-limiter';
import type { CrmError } from '../crm.error';
import { toCrmError } from './followupboss-error.mapper';
import type { ResolvedFollowUpBossOptions } from './followupboss.options';

export type Sleep = (ms: number) => Promise<void>;
const defaultSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export interface FubCall {
  method: Method;
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  // What is being done, in words for error messages: "update deal 12".
  what: string;
  // Safe to send again when the outcome is unknown (reads, updates); never a create.
  idempotent: boolean;
  record?: string;
}

// Every FUB call goes through here: HTTP Basic with the API key, the system headers, the
// account's sliding-window rate limit, a timeout, and the only retry layer (429 after Retry-After
// for any call, since FUB did not act on it; 5xx and network failures for idempotent calls only).
export class FollowUpBossHttpClient {
  private readonly logger = new Logger('FollowUpBossCrmAdapter');
  private readonly http: AxiosInstance;
  private readonly throttle: () => Promise<void>;
  calls = 0;

  constructor(
    private readonly options: ResolvedFollowUpBossOptions,
    private readonly sleep: Sleep = defaultSleep,
  ) {
    this.http = axios.create({
      baseURL: `${options.baseUrl}/v1`,
      timeout: options.requestTimeoutMs,
      auth: { username: options.apiKey, password: '' },
      headers: {
        'X-System': options.system ?? 'cash-offer-sync',
        ...(options.systemKey ? { 'X-System-Key': options.systemKey } : {}),
        accept: 'application/json',
      },
      // Statuses are judged here, not by axios, so every answer goes through toCrmError.
      validateStatus: (status) => status >= 200 && status < 300,
    });
    // A strict rolling window: no window of any start holds more than `max` calls, as FUB's
    // sliding window counts them; callers wait for their turn instead of spending calls on 429s.
    const { max, intervalMs } = options.rateLimit;
    const limit = { max, intervalMs: intervalMs + options.rateLimitMarginMs };
    const local = pThrottle({ limit: limit.max, interval: limit.intervalMs, strict: true })(() => undefined);
    const shared = options.sharedLimiter;
    // The API key names the account in the budget shared with other workers.
    const account = accountKey('followupboss', options.baseUrl, options.apiKey);
    this.throttle = shared
      ? async () => {
          await local();
          await shared.acquire(account, limit);
        }
      : local;
  }

  async call<T>(spec: FubCall): Promise<T> {
    let rateLimited = 0;
    let transient = 0;
    for (;;) {
      await this.throttle();
      this.calls++;
      let error: CrmError;
      try {
        const response = await this.http.request<T>({
          method: spec.method,
          url: spec.path,
          params: spec.query,
          data: spec.body,
        });
        return response.data;
      } catch (caught) {
        error = toCrmError(caught, spec.what, spec.record);
      }
      if (error.code === 'RATE_LIMITED' && rateLimited < this.options.maxRateLimitRetries) {
        rateLimited++;
        const wait = jitter(error.retryAfterMs ?? 1000);
        this.logger.warn(`${spec.what}: rate limited by Follow Up Boss, waiting ${wait} ms`);
        await this.sleep(wait);
        continue;
      }
      if (error.code === 'UNAVAILABLE' && spec.idempotent && transient < this.options.maxTransientRetries) {
        transient++;
        // FUB recommends truncated exponential backoff on 5xx: 1, 2, 4 s plus jitter (B4).
        const wait = jitter(1000 * 2 ** (transient - 1));
        this.logger.warn(`${spec.what}: ${error.message}; retrying in ${wait} ms`);
        await this.sleep(wait);
        continue;
      }
      throw error;
    }
  }
}

// Up to a quarter more, so parallel callers do not come back in step.
function jitter(ms: number): number {
  return Math.round(ms * (1 + Math.random() * 0.25));
}

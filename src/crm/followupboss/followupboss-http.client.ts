import { Logger } from '@nestjs/common';
import axios, { type AxiosInstance, type Method } from 'axios';
import type { RemoteCallPolicy } from '../../common/remote-call.policy';
import { accountLimiter } from '../../common/account-limiter.factory';
import { withMargin } from '../../common/rate-limit';
import { accountKey } from '../../common/shared-account-limiter';
import { crmCallPolicy, TimeoutStrategy, type CrmCall } from '../crm-call.policy';
import { toCrmError } from './followupboss-error.mapper';
import type { ResolvedFollowUpBossOptions } from './followupboss.options';

export interface FubCall extends CrmCall {
  method: Method;
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
}

// Every FUB call goes through here: HTTP Basic with the API key, the system headers, the
// account's rolling-window rate limit, a timeout, the only retry layer (429 after Retry-After for
// any call, since FUB did not act on it; 5xx and network failures for idempotent calls only) and
// the account's circuit breaker.
export class FollowUpBossHttpClient {
  private readonly http: AxiosInstance;
  private readonly policy: RemoteCallPolicy<FubCall>;
  calls = 0;

  constructor(options: ResolvedFollowUpBossOptions) {
    this.http = axios.create({
      baseURL: `${options.baseUrl}/v1`,
      auth: { username: options.apiKey, password: '' },
      headers: {
        'X-System': options.system ?? 'cash-offer-sync',
        ...(options.systemKey ? { 'X-System-Key': options.systemKey } : {}),
        accept: 'application/json',
      },
      // Statuses are judged here, not by axios, so every answer goes through toCrmError.
      validateStatus: (status) => status >= 200 && status < 300,
    });
    // FUB counts a sliding window from a call's arrival; the limiter's windows run from a call's
    // end, the margin is slack (rate-limit.ts withMargin). The API key names the account in the
    // budget shared with other workers.
    const limiter = accountLimiter(
      withMargin(options.rateLimit, options.rateLimitMarginMs),
      accountKey('followupboss', options.baseUrl, options.apiKey),
      options.sharedLimiter,
      // axios stops the request when its attempt times out (below).
      { timeoutMs: options.requestTimeoutMs, abortsAtTimeout: true },
    );
    const brokerage = options.brokerageId;
    this.policy = crmCallPolicy<FubCall>({
      crm: 'Follow Up Boss',
      account: brokerage
        ? `brokerage ${brokerage}'s Follow Up Boss account`
        : `the Follow Up Boss account at ${options.baseUrl}`,
      settings: options,
      // axios stops the request when the attempt's signal is aborted.
      timeoutStrategy: TimeoutStrategy.Cooperative,
      toError: (error, spec) => toCrmError(error, spec.what, spec.record),
      takeTurn: () => limiter.acquire(),
      logger: new Logger('FollowUpBossCrmAdapter'),
    });
  }

  call<T>(spec: FubCall): Promise<T> {
    return this.policy.execute(spec, async ({ signal }) => {
      this.calls++;
      const response = await this.http.request<T>({
        method: spec.method,
        url: spec.path,
        params: spec.query,
        data: spec.body,
        signal,
      });
      return response.data;
    });
  }
}

import { Logger } from '@nestjs/common';
import type { RemoteCallPolicy } from '../../common/remote-call.policy';
import { crmCallPolicy, TimeoutStrategy, type CrmCall } from '../crm-call.policy';
import type { CrmCallHooks, CrmPolicySettings } from '../crm-call.settings';
import { toCrmError } from './hubspot-error.mapper';
import type { HubSpotRateLimiter, RequestLane } from './hubspot-rate-limiter';

export interface CallSpec extends CrmCall {
  lane: RequestLane;
}

// Every HubSpot call goes through here: the portal's rate limit, a timeout, the only retry layer
// (the SDK's numberOfApiCallRetries stays off, so two layers never retry blindly) and the
// portal's circuit breaker.
export class HubSpotRequestRunner {
  calls = 0;
  private readonly policy: RemoteCallPolicy<CallSpec>;

  constructor(
    limiter: HubSpotRateLimiter,
    settings: CrmPolicySettings & Pick<CrmCallHooks, 'onRateLimitMiss'>,
    // The portal, in words for the breaker's errors: "brokerage acme's HubSpot portal".
    account: string,
  ) {
    this.policy = crmCallPolicy<CallSpec>({
      crm: 'HubSpot',
      account,
      settings,
      // The SDK's calls take no AbortSignal: a timed-out call is abandoned and its answer ignored.
      timeoutStrategy: TimeoutStrategy.Aggressive,
      toError: (error, spec) => toCrmError(error, spec.what),
      takeTurn: (spec) => limiter.acquire(spec.lane),
      logger: new Logger('HubSpotCrmAdapter'),
    });
  }

  run<T>(spec: CallSpec, call: () => Promise<T>): Promise<T> {
    return this.policy.execute(spec, () => {
      this.calls++;
      return call();
    });
  }
}

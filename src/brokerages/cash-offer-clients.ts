import { Injectable, Optional, type OnModuleDestroy } from '@nestjs/common';
import { CashOfferClient, CashOfferClientFactory } from '../cash-offer';
import { CredentialSuspicions } from '../common/credential-suspicions';
import { perSecond } from '../common/rate-limit';
import { ConfigService } from '../config/config.service';
import type { LoadedBrokerage } from '../config/config.loader';
import { MetricsService } from '../observability/metrics/metrics.service';
import { PerBrokerageCache } from './per-brokerage.cache';

// One Cash Offer client per brokerage, kept for the life of its config so its rate limit and
// breaker see every call; rebuilt when the brokerage's config changes (the old one retired: a run
// still holding it finishes its calls), closed when the daemon stops. Every call it makes is
// counted in the API-call metric.
@Injectable()
export class CashOfferClients implements OnModuleDestroy {
  private readonly clients: PerBrokerageCache<CashOfferClient>;

  constructor(
    config: ConfigService,
    private readonly factory: CashOfferClientFactory,
    private readonly metrics: MetricsService,
    // Absent where no app core is (unit tests building the clients by hand).
    @Optional() private readonly suspicions?: CredentialSuspicions,
  ) {
    this.clients = new PerBrokerageCache(config, (brokerage) => this.build(brokerage), {
      retire: (client) => client.retire(),
      close: (client) => client.close(),
    });
  }

  get(brokerageId: string): CashOfferClient {
    return this.clients.get(brokerageId).value;
  }

  onModuleDestroy(): void {
    this.clients.clear();
  }

  private build(brokerage: LoadedBrokerage): CashOfferClient {
    const { cashOffer } = brokerage.config;
    return this.factory.create({
      brokerageId: brokerage.id,
      baseUrl: cashOffer.baseUrl,
      apiKey: brokerage.secrets.cashOfferApiKey,
      timeoutMs: cashOffer.timeoutMs,
      rateLimit: cashOffer.rateLimit && perSecond(cashOffer.rateLimit.requestsPerSecond),
      onCall: (event) => {
        this.metrics.apiCall(event.brokerageId, 'cash-offer', event.status);
        // The service's word for a key it does not know (docs/spec-decisions.md), or a service that
        // says 403: the credential watch checks which it is.
        if (event.status === 401 || event.status === 403 || event.keyRefused)
          this.suspicions?.report(event.brokerageId);
      },
    });
  }
}

import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { CashOfferClient, CashOfferClientFactory } from '../cash-offer';
import { ConfigService } from '../config/config.service';
import { LoadedBrokerage } from '../config/config.loader';
import { MetricsService } from '../ops/metrics/metrics.service';

// One Cash Offer client per brokerage, kept for the life of its config so its rate limit and
// breaker see every call; rebuilt when the brokerage's config changes, closed when it goes.
@Injectable()
export class BrokerageClients implements OnModuleDestroy {
  private readonly clients = new Map<string, { fingerprint: string; client: CashOfferClient }>();

  constructor(
    private readonly config: ConfigService,
    private readonly factory: CashOfferClientFactory,
    private readonly metrics: MetricsService,
  ) {
    config.onChange((diff) => {
      for (const id of [...diff.changed, ...diff.removed]) this.drop(id.id);
    });
  }

  cashOffer(brokerageId: string): CashOfferClient {
    const brokerage = this.config.get(brokerageId);
    if (!brokerage) throw new Error(`no brokerage "${brokerageId}" is configured`);
    const cached = this.clients.get(brokerageId);
    if (cached && cached.fingerprint === brokerage.fingerprint) return cached.client;
    if (cached) cached.client.close();
    const client = this.build(brokerage);
    this.clients.set(brokerageId, { fingerprint: brokerage.fingerprint, client });
    return client;
  }

  onModuleDestroy(): void {
    for (const id of [...this.clients.keys()]) this.drop(id);
  }

  private build(brokerage: LoadedBrokerage): CashOfferClient {
    const { cashOffer } = brokerage.config;
    return this.factory.create({
      brokerageId: brokerage.id,
      baseUrl: cashOffer.baseUrl,
      apiKey: brokerage.secrets.cashOfferApiKey,
      timeoutMs: cashOffer.timeoutMs,
      rateLimit: cashOffer.rateLimit && { requests: cashOffer.rateLimit.requestsPerSecond, perMs: 1000 },
      onCall: (event) => this.metrics.apiCall(event.brokerageId, 'cash-offer', event.status),
    });
  }

  private drop(brokerageId: string): void {
    this.clients.get(brokerageId)?.client.close();
    this.clients.delete(brokerageId);
  }
}

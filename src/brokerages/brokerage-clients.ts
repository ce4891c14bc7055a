import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { CashOfferClient, CashOfferClientFactory } from '../cash-offer';
import { CASH_OFFER_CRM_SCHEMA, CrmStageMap, type CrmPort } from '../crm';
import { ConfigService } from '../config/config.service';
import { LoadedBrokerage } from '../config/config.loader';
import { MetricsService } from '../ops/metrics/metrics.service';
import type { BrokerageCrm } from './brokerage-crm';
import { parseMappingOverrides, type CrmFieldMapping } from '../crm/mapping/crm-field-mapping';
import { CrmPortFactory } from './crm-port.factory';
import { resolveStages } from './crm-stage.resolver';

// One Cash Offer client per brokerage, kept for the life of its config so its rate limit and
// breaker see every call; rebuilt when the brokerage's config changes, closed when it goes.
@Injectable()
export class BrokerageClients implements OnModuleDestroy {
  private readonly logger = new Logger(BrokerageClients.name);
  private readonly clients = new Map<string, { fingerprint: string; client: CashOfferClient }>();
  private readonly crms = new Map<
    string,
    { fingerprint: string; port: CrmPort; mapping: CrmFieldMapping; stages?: Promise<CrmStageMap> }
  >();

  constructor(
    private readonly config: ConfigService,
    private readonly factory: CashOfferClientFactory,
    private readonly metrics: MetricsService,
    private readonly crmFactory: CrmPortFactory,
  ) {
    config.onChange((diff) => {
      for (const id of [...diff.changed, ...diff.removed]) this.drop(id.id);
    });
  }

  // The brokerage's CRM: its adapter (one per config fingerprint, so its rate limit sees every call),
  // its field mapping, and the stage ids resolved from its pipelines, looked up again until
  // setup-crm has created every pipeline and stage.
  async crm(brokerageId: string): Promise<BrokerageCrm> {
    const brokerage = this.config.get(brokerageId);
    if (!brokerage) throw new Error(`no brokerage "${brokerageId}" is configured`);
    let entry = this.crms.get(brokerageId);
    if (!entry || entry.fingerprint !== brokerage.fingerprint) {
      entry = {
        fingerprint: brokerage.fingerprint,
        port: this.crmFactory.create(brokerage),
        mapping: parseMappingOverrides(brokerage.config.crm.mapping?.overrides, brokerage.config.crm.kind),
      };
      this.crms.set(brokerageId, entry);
    }
    const current = entry;
    current.stages ??= this.resolveStages(brokerage.id, current.port).catch((error: unknown) => {
      current.stages = undefined;
      throw error;
    });
    const stages = await current.stages;
    return {
      brokerageId: brokerage.id,
      port: current.port,
      stages,
      mapping: current.mapping,
      listings: brokerage.config.crm.pipelines.listings,
      testMode: brokerage.config.testMode === true,
    };
  }

  private async resolveStages(brokerageId: string, port: CrmPort): Promise<CrmStageMap> {
    const { data, missing } = resolveStages(CASH_OFFER_CRM_SCHEMA, await port.listPipelines('deal'));
    const entry = this.crms.get(brokerageId);
    if (missing.length > 0) {
      this.logger.warn(`brokerage ${brokerageId}: the CRM lacks ${missing.join(', ')}; run setup-crm`);
      // Looked up again on the next call.
      if (entry?.port === port) entry.stages = undefined;
    }
    return new CrmStageMap(data);
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
    this.crms.delete(brokerageId);
  }
}

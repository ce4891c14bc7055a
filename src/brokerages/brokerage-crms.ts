import { PerBrokerageCache } from './per-brokerage.cache';
import { Injectable, Logger } from '@nestjs/common';
import { CASH_OFFER_CRM_SCHEMA, CrmStageMap, type CrmFieldMapping, type CrmPort } from '../crm';
import { parseMappingOverrides } from '../crm/mapping/crm-field-mapping';
import { ConfigService } from '../config/config.service';
import type { BrokerageCrm } from './brokerage-crm';
import { CrmPortFactory } from './crm-port.factory';
import { resolveStages } from './crm-stage.resolver';

interface CrmEntry {
  port: CrmPort;
  mapping: CrmFieldMapping;
  // Resolved once; cleared while the CRM lacks some of the schema, so it is looked up again.
  stages?: Promise<CrmStageMap>;
}

// Each brokerage's CRM as the flows see it (BrokerageCrm): its adapter (one per config fingerprint,
// so its rate limit sees every call), its field mapping, and the stage ids resolved from its
// pipelines, looked up again until setup-crm has created every pipeline and stage.
@Injectable()
export class BrokerageCrms {
  private readonly logger = new Logger(BrokerageCrms.name);
  private readonly crms: PerBrokerageCache<CrmEntry>;

  constructor(config: ConfigService, crmFactory: CrmPortFactory) {
    this.crms = new PerBrokerageCache(config, (brokerage) => ({
      port: crmFactory.create(brokerage),
      mapping: parseMappingOverrides(brokerage.config.crm.mapping?.overrides, brokerage.config.crm.kind),
    }));
  }

  async get(brokerageId: string): Promise<BrokerageCrm> {
    const { brokerage, value: entry } = this.crms.get(brokerageId);
    entry.stages ??= this.resolveStages(brokerage.id, entry).catch((error: unknown) => {
      entry.stages = undefined;
      throw error;
    });
    const stages = await entry.stages;
    return {
      brokerageId: brokerage.id,
      port: entry.port,
      stages,
      mapping: entry.mapping,
      listings: brokerage.config.crm.pipelines.listings,
      testMode: brokerage.config.testMode === true,
    };
  }

  private async resolveStages(brokerageId: string, entry: CrmEntry): Promise<CrmStageMap> {
    const { data, missing } = resolveStages(CASH_OFFER_CRM_SCHEMA, await entry.port.listPipelines('deal'));
    if (missing.length > 0) {
      this.logger.warn(`brokerage ${brokerageId}: the CRM lacks ${missing.join(', ')}; run setup-crm`);
      // Looked up again on the next call.
      entry.stages = undefined;
    }
    return new CrmStageMap(data);
  }
}

import { Injectable } from '@nestjs/common';
import { CASH_OFFER_CRM_SCHEMA, type CrmSchemaReport } from '../crm';
import { withListingProperties } from '../crm/hubspot/hubspot-default-mapping';
import { ConfigService } from '../config/config.service';
import { parseMappingOverrides } from './crm-field-mapping';
import { CrmPortFactory } from './crm-port.factory';

// `setup-crm`: creates, idempotently, the property group, the custom properties (including the
// listing properties the brokerage's mapping reads) and the pipelines and stages the flows use.
@Injectable()
export class CrmSetupService {
  constructor(
    private readonly config: ConfigService,
    private readonly ports: CrmPortFactory,
  ) {}

  async setup(brokerageId: string): Promise<CrmSchemaReport> {
    const brokerage = this.config.get(brokerageId);
    if (!brokerage) throw new Error(`no brokerage "${brokerageId}" is configured`);
    const mapping = parseMappingOverrides(brokerage.config.crm.mapping?.overrides);
    const port = this.ports.create(brokerage);
    return port.ensureSchema(withListingProperties(CASH_OFFER_CRM_SCHEMA, mapping));
  }
}

import { Injectable } from '@nestjs/common';
import type { CrmSchemaReport } from '../crm';
import { ConfigService } from '../config/config.service';
import { crmSchemaFor } from './crm-setup.schema';
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
    const { crm } = brokerage.config;
    return this.ports.create(brokerage).ensureSchema(crmSchemaFor(crm.kind, crm.mapping?.overrides));
  }
}

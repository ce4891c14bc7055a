import { Injectable } from '@nestjs/common';
import type { CrmChangeSubscriptionReport, CrmSchemaReport } from '../crm';
import { ConfigService } from '../config/config.service';
import { crmSchemaFor } from './crm-setup.schema';
import { CrmPortFactory } from './crm-port.factory';
import { crmWebhookUrl, wantsCrmChangeWebhooks } from './crm-webhook-url';

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

  // Asks the CRM to notify the daemon's webhook listener of changes (Follow Up Boss webhooks), when
  // the brokerage wants it; idempotent. `null` when it does not (another CRM, or turned off).
  async subscribeToChanges(brokerageId: string): Promise<CrmChangeSubscriptionReport | null> {
    const brokerage = this.config.get(brokerageId);
    if (!brokerage) throw new Error(`no brokerage "${brokerageId}" is configured`);
    if (!wantsCrmChangeWebhooks(brokerage)) return null;
    return this.ports.create(brokerage).subscribeToChanges(crmWebhookUrl(brokerage));
  }
}

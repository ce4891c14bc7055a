import { Injectable } from '@nestjs/common';
import { Clock } from '../common/clock';
import type { CrmPort } from '../crm';
import { HubSpotCrmAdapter } from '../crm/hubspot';
import type { LoadedBrokerage } from '../config/config.loader';

// Builds the CRM adapter a brokerage's config names. The only place that knows which adapters exist.
@Injectable()
export class CrmPortFactory {
  constructor(private readonly clock: Clock) {}

  create(brokerage: LoadedBrokerage): CrmPort {
    const { crm } = brokerage.config;
    if (crm.kind !== 'hubspot')
      throw new Error(`brokerage ${brokerage.id}: CRM kind "${String(crm.kind)}" has no adapter`);
    return new HubSpotCrmAdapter(
      {
        accessToken: brokerage.secrets.crmToken,
        ...(crm.baseUrl ? { basePath: crm.baseUrl.replace(/\/+$/, '') } : {}),
        ...(crm.rateLimit ? { rateLimit: { max: crm.rateLimit.requestsPerSecond, intervalMs: 1000 } } : {}),
        ...(crm.accountTier ? { accountTier: crm.accountTier } : {}),
      },
      this.clock,
    );
  }
}

import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { Clock } from '../common/clock';
import { perSecond } from '../common/rate-limit';
import { RateLimitMisses } from '../common/rate-limit-misses';
import { SHARED_ACCOUNT_LIMITER, type SharedAccountLimiter } from '../common/shared-account-limiter';
import { VendorNeutralCrmPort, type CrmPort } from '../crm';
import type { CrmCallOptions } from '../crm/crm-call.settings';
import { FOLLOWUPBOSS_VENDOR_PROFILE, FollowUpBossCrmAdapter } from '../crm/followupboss';
import { HubSpotCrmAdapter, HubSpotPortalLimiters, hubSpotVendorProfile } from '../crm/hubspot';
import { MetricsService } from '../observability/metrics/metrics.service';
import type { LoadedBrokerage } from '../config/config.loader';
import { crmSchemaFor } from './crm-setup.schema';
import { datePropertiesOf } from './listing-properties';

// Builds the CRM adapter a brokerage's config names, wrapped so flows see the port's words only.
// The only place that knows which adapters exist. One per process: brokerages on one HubSpot
// portal share its budget (HubSpotPortalLimiters), and every adapter reports its 429s to one
// RateLimitMisses.
@Injectable()
export class CrmPortFactory {
  private readonly hubSpotPortals: HubSpotPortalLimiters;
  private readonly misses: RateLimitMisses;

  constructor(
    private readonly clock: Clock,
    // Set when workers share a PostgreSQL ledger; absent for commands that open no ledger.
    @Optional() @Inject(SHARED_ACCOUNT_LIMITER) private readonly sharedLimiter?: SharedAccountLimiter | null,
    // Absent for commands that serve no metrics.
    @Optional() metrics?: MetricsService | null,
  ) {
    this.hubSpotPortals = new HubSpotPortalLimiters(sharedLimiter ?? undefined);
    this.misses = new RateLimitMisses(clock, new Logger('RateLimitMisses'), (remote) =>
      metrics?.rateLimitMiss(remote),
    );
  }

  // `calls` overrides the adapter's call settings (a command an operator waits on retries less).
  create(brokerage: LoadedBrokerage, calls: Pick<CrmCallOptions, 'maxTransientRetries'> = {}): CrmPort {
    const { crm } = brokerage.config;
    const kind = crm.kind as string;
    if (kind === 'hubspot') {
      const adapter = new HubSpotCrmAdapter(
        {
          ...calls,
          accessToken: brokerage.secrets.crmToken,
          brokerageId: brokerage.id,
          ...(this.sharedLimiter ? { sharedLimiter: this.sharedLimiter } : {}),
          portalLimiters: this.hubSpotPortals,
          onRateLimitMiss: () => this.misses.record('hubspot', `brokerage ${brokerage.id}'s HubSpot portal`),
          ...(crm.baseUrl ? { basePath: crm.baseUrl.replace(/\/+$/, '') } : {}),
          ...(crm.rateLimit ? { rateLimit: perSecond(crm.rateLimit.requestsPerSecond) } : {}),
          ...(crm.accountTier ? { accountTier: crm.accountTier } : {}),
          ...(crm.searchRateLimit
            ? { searchRateLimit: perSecond(crm.searchRateLimit.requestsPerSecond) }
            : {}),
        },
        this.clock,
      );
      return new VendorNeutralCrmPort(adapter, hubSpotVendorProfile(this.dateProperties(brokerage)));
    }
    if (kind === 'followupboss') {
      const adapter = new FollowUpBossCrmAdapter(
        {
          ...calls,
          apiKey: brokerage.secrets.crmToken,
          brokerageId: brokerage.id,
          ...(this.sharedLimiter ? { sharedLimiter: this.sharedLimiter } : {}),
          onRateLimitMiss: () =>
            this.misses.record('followupboss', `brokerage ${brokerage.id}'s Follow Up Boss account`),
          ...(crm.baseUrl ? { baseUrl: crm.baseUrl } : {}),
          ...(crm.system ? { system: crm.system } : {}),
          ...(brokerage.secrets.crmSystemKey ? { systemKey: brokerage.secrets.crmSystemKey } : {}),
          ...(crm.rateLimit ? { rateLimit: perSecond(crm.rateLimit.requestsPerSecond) } : {}),
        },
        this.clock,
      );
      return new VendorNeutralCrmPort(adapter, FOLLOWUPBOSS_VENDOR_PROFILE);
    }
    throw new Error(`brokerage ${brokerage.id}: CRM kind "${kind}" has no adapter`);
  }

  // Date properties of everything setup-crm installs for this brokerage's mapping.
  private dateProperties(brokerage: LoadedBrokerage): Map<string, 'date' | 'datetime'> {
    const { crm } = brokerage.config;
    return datePropertiesOf(crmSchemaFor(crm.kind, crm.mapping?.overrides));
  }
}

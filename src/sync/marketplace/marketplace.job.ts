import { Injectable } from '@nestjs/common';
import { BrokerageCrms } from '../../brokerages/brokerage-crms';
import { CashOfferClients } from '../../brokerages/cash-offer-clients';
import { Clock } from '../../common/clock';
import { CRM_ROLE } from '../../crm/crm-roles';
import { LinkRepository, RecordErrorRepository } from '../../ledger';
import { MetricsService } from '../../observability/metrics/metrics.service';
import { SyncJob, type SyncJobHandler } from '../../scheduler/sync-job.decorator';
import type { JobContext, JobResult } from '../../scheduler/job.types';
import { MARKETPLACE_FLOW } from './marketplace.constants';
import { MarketplaceSync } from './marketplace.sync';

// The `marketplace` job: one mirror pass for one brokerage, on its cron.
@Injectable()
@SyncJob('marketplace')
export class MarketplaceJob implements SyncJobHandler {
  private readonly sync: MarketplaceSync;

  constructor(
    private readonly crms: BrokerageCrms,
    private readonly cashOffers: CashOfferClients,
    private readonly metrics: MetricsService,
    links: LinkRepository,
    recordErrors: RecordErrorRepository,
    clock: Clock,
  ) {
    this.sync = new MarketplaceSync(links, recordErrors, clock);
  }

  async run(ctx: JobContext): Promise<JobResult> {
    const id = ctx.brokerage.id;
    const crm = await this.crms.get(id);
    const counts = await this.sync.run(ctx, this.cashOffers.get(id), {
      crm: crm.port,
      stages: crm.stages,
      record: { nameProperty: CRM_ROLE.name },
    });
    if (!ctx.dryRun) this.metrics.recordsSyncedInRun(id, MARKETPLACE_FLOW, counts);
    return { counts };
  }
}

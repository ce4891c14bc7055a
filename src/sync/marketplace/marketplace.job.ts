import { Injectable } from '@nestjs/common';
import { BrokerageClients } from '../../brokerages/brokerage-clients';
import { Clock } from '../../common/clock';
import { CRM_ROLE } from '../../crm/crm-roles';
import { LinkRepository, RecordErrorRepository } from '../../ledger';
import { MetricsService } from '../../ops/metrics/metrics.service';
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
    private readonly clients: BrokerageClients,
    private readonly metrics: MetricsService,
    links: LinkRepository,
    recordErrors: RecordErrorRepository,
    clock: Clock,
  ) {
    this.sync = new MarketplaceSync(links, recordErrors, clock);
  }

  async run(ctx: JobContext): Promise<JobResult> {
    const id = ctx.brokerage.id;
    const crm = await this.clients.crm(id);
    const counts = await this.sync.run(ctx, this.clients.cashOffer(id), {
      crm: crm.port,
      stages: crm.stages,
      record: { nameProperty: CRM_ROLE.name },
    });
    if (!ctx.dryRun) this.metrics.recordsSyncedInRun(id, MARKETPLACE_FLOW, counts);
    return { counts };
  }
}

import { Injectable, OnModuleInit } from '@nestjs/common';
import { BrokerageClients } from '../../brokerages/brokerage-clients';
import { Clock } from '../../common/clock';
import { CRM_ROLE } from '../../crm/crm-roles';
import { LinkRepository, RecordErrorRepository } from '../../ledger';
import { MetricsService } from '../../ops/metrics/metrics.service';
import { JobRegistry } from '../../scheduler/job.registry';
import type { JobContext, JobResult } from '../../scheduler/job.types';
import { MARKETPLACE_FLOW } from './marketplace.constants';
import { MarketplaceSync } from './marketplace.sync';

// The `marketplace` job: one mirror pass for one brokerage, on its cron.
@Injectable()
export class MarketplaceJob implements OnModuleInit {
  private readonly sync: MarketplaceSync;

  constructor(
    private readonly registry: JobRegistry,
    private readonly clients: BrokerageClients,
    private readonly metrics: MetricsService,
    links: LinkRepository,
    recordErrors: RecordErrorRepository,
    clock: Clock,
  ) {
    this.sync = new MarketplaceSync(links, recordErrors, clock);
  }

  onModuleInit(): void {
    this.registry.register('marketplace', (ctx) => this.run(ctx));
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

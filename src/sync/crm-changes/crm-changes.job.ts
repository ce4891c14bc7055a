import { Injectable, Logger } from '@nestjs/common';
import { MetricsService } from '../../observability/metrics/metrics.service';
import { SyncJob, type SyncJobHandler } from '../../scheduler/sync-job.decorator';
import { emptyCounts, type JobContext, type JobResult } from '../../scheduler/job.types';
import { addCounts } from '../common/job-counts';
import { CrmChangeConsumers } from './crm-change.consumers';
import { SharedChangeReads } from './shared-change.reads';

// The `crm-changes` job: every registered consumer, each record kind read once for all of them,
// counts summed and recorded per consumer (not on a dry run). A consumer that throws does not stop
// the others, but the run fails and names it.
@Injectable()
@SyncJob('crm-changes')
export class CrmChangesJob implements SyncJobHandler {
  private readonly logger = new Logger(CrmChangesJob.name);

  constructor(
    private readonly consumers: CrmChangeConsumers,
    private readonly reads: SharedChangeReads,
    private readonly metrics: MetricsService,
  ) {}

  async run(ctx: JobContext): Promise<JobResult> {
    const counts = emptyCounts();
    const failures: string[] = [];
    for (const { name, counts: consumed, failure } of await this.reads.run(ctx, this.consumers.all())) {
      if (failure !== undefined) {
        this.logger.error(`${name} failed for ${ctx.brokerage.id}: ${failure}`);
        failures.push(`${name}: ${failure}`);
        continue;
      }
      addCounts(counts, consumed);
      if (!ctx.dryRun) this.metrics.recordsSyncedInRun(ctx.brokerage.id, name, consumed);
    }
    if (failures.length > 0) {
      const summary = `read ${counts.read}, created ${counts.created}, updated ${counts.updated}, failed ${counts.failed}`;
      throw new Error(`${failures.join('; ')} (the other consumers ran: ${summary})`);
    }
    return { counts };
  }
}

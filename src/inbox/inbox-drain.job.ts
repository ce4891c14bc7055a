import { Inject, Injectable } from '@nestjs/common';
import { DAEMON_SETTINGS, type DaemonSettings } from '../config/daemon-settings';
import { InboxRepository } from '../ledger';
import { SyncJob, type SyncJobHandler } from '../scheduler/sync-job.decorator';
import { emptyCounts, JobContext, JobResult } from '../scheduler/job.types';
import { leftForNextRun } from '../scheduler/drain-run.budget';
import { InboxProcessor } from './inbox.processor';

// The `inbox-drain` job: applies stored webhook events. A dry run only counts what is due.
@Injectable()
@SyncJob('inbox-drain')
export class InboxDrainJob implements SyncJobHandler {
  constructor(
    private readonly processor: InboxProcessor,
    private readonly inbox: InboxRepository,
    @Inject(DAEMON_SETTINGS) private readonly settings: Pick<DaemonSettings, 'drainRunBudgetMs'>,
  ) {}

  async run(ctx: JobContext): Promise<JobResult> {
    const counts = emptyCounts();
    if (ctx.dryRun) {
      const depth = await this.inbox.depth(ctx.brokerage.id);
      counts.read = depth.pending + depth.failed;
      return { counts };
    }
    const result = await this.processor.drain(ctx.brokerage.id, ctx.signal, {
      runBudgetMs: this.settings.drainRunBudgetMs,
    });
    counts.read = result.processed + result.failed + result.deadLettered + result.flagged;
    counts.updated = result.processed;
    counts.failed = result.failed + result.deadLettered + result.flagged;
    if (!result.endedOnBudget) return { counts };
    const depth = await this.inbox.depth(ctx.brokerage.id);
    return {
      counts,
      left: leftForNextRun('webhook event', {
        pending: depth.pending,
        'failed, to be retried': depth.failed,
      }),
    };
  }
}

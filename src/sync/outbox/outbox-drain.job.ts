import { Inject, Injectable } from '@nestjs/common';
import { DAEMON_SETTINGS, type DaemonSettings } from '../../config/daemon-settings';
import { SyncJob, type SyncJobHandler } from '../../scheduler/sync-job.decorator';
import type { JobContext, JobResult } from '../../scheduler/job.types';
import { OutboxDrainService } from './outbox-drain.service';

// The `outbox-drain` job: one call into the drain. A dry run only counts what is due.
@Injectable()
@SyncJob('outbox-drain')
export class OutboxDrainJob implements SyncJobHandler {
  constructor(
    private readonly drain: OutboxDrainService,
    @Inject(DAEMON_SETTINGS) private readonly settings: Pick<DaemonSettings, 'drainRunBudgetMs'>,
  ) {}

  async run(ctx: JobContext): Promise<JobResult> {
    return this.drain.drain(ctx, { runBudgetMs: this.settings.drainRunBudgetMs });
  }
}

import { Injectable } from '@nestjs/common';
import { SyncJob, type SyncJobHandler } from '../../scheduler/sync-job.decorator';
import type { JobContext, JobResult } from '../../scheduler/job.types';
import { OutboxDrainService } from './outbox-drain.service';

// The `outbox-drain` job: one call into the drain. A dry run only counts what is due.
@Injectable()
@SyncJob('outbox-drain')
export class OutboxDrainJob implements SyncJobHandler {
  constructor(private readonly drain: OutboxDrainService) {}

  async run(ctx: JobContext): Promise<JobResult> {
    return this.drain.drain(ctx);
  }
}

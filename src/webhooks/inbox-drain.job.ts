import { Injectable, OnModuleInit } from '@nestjs/common';
import { InboxRepository } from '../ledger';
import { JobRegistry } from '../scheduler/job.registry';
import { emptyCounts, JobContext, JobResult } from '../scheduler/job.types';
import { InboxProcessor } from './inbox.processor';

// The `inbox-drain` job: applies stored webhook events. A dry run only counts what is due.
@Injectable()
export class InboxDrainJob implements OnModuleInit {
  constructor(
    private readonly registry: JobRegistry,
    private readonly processor: InboxProcessor,
    private readonly inbox: InboxRepository,
  ) {}

  onModuleInit(): void {
    this.registry.register('inbox-drain', (ctx) => this.run(ctx));
  }

  private async run(ctx: JobContext): Promise<JobResult> {
    const counts = emptyCounts();
    if (ctx.dryRun) {
      const depth = await this.inbox.depth(ctx.brokerage.id);
      counts.read = depth.pending + depth.failed;
      return { counts };
    }
    const result = await this.processor.drain(ctx.brokerage.id, ctx.signal);
    counts.read = result.processed + result.failed + result.deadLettered + result.flagged;
    counts.updated = result.processed;
    counts.failed = result.failed + result.deadLettered + result.flagged;
    return { counts };
  }
}

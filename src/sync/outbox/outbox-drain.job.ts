import { Injectable, OnModuleInit } from '@nestjs/common';
import { JobRegistry } from '../../scheduler/job.registry';
import type { JobContext, JobResult } from '../../scheduler/job.types';
import { OutboxDrainService } from './outbox-drain.service';

// The `outbox-drain` job: one call into the drain. A dry run only counts what is due.
@Injectable()
export class OutboxDrainJob implements OnModuleInit {
  constructor(
    private readonly registry: JobRegistry,
    private readonly drain: OutboxDrainService,
  ) {}

  onModuleInit(): void {
    this.registry.register('outbox-drain', (ctx) => this.run(ctx));
  }

  async run(ctx: JobContext): Promise<JobResult> {
    return { counts: await this.drain.drain(ctx) };
  }
}

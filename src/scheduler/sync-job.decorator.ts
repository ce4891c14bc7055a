import { DiscoveryService } from '@nestjs/core';
import type { JobContext, JobName, JobResult } from './job.types';

// Marks the provider that runs one scheduled job: `@SyncJob('marketplace')`. JobRegistry finds every
// such provider at start; a job with no provider stops a scheduling daemon's start.
export const SyncJob = DiscoveryService.createDecorator<JobName>();

export interface SyncJobHandler {
  run(ctx: JobContext): Promise<JobResult>;
}

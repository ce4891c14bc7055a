import { Injectable, Optional, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { discoverClasses } from '../common/discovered-handlers';
import { JOB_NAMES, type JobHandler, type JobName } from './job.types';
import { SyncJob, type SyncJobHandler } from './sync-job.decorator';

// Which provider runs each job: every `@SyncJob(name)` class, found at start; cron, pg-boss and the
// CLI look handlers up by job name. `register` is for a stand-in (the scheduler tests' daemon shell).
@Injectable()
export class JobRegistry implements OnModuleInit {
  private readonly handlers = new Map<JobName, JobHandler>();

  // Optional so unit tests can build the registry without Nest and register stand-ins.
  constructor(@Optional() private readonly discovery?: DiscoveryService) {}

  onModuleInit(): void {
    if (!this.discovery) return;
    for (const { metadata, instance, className } of discoverClasses<JobName, SyncJobHandler>(
      this.discovery,
      SyncJob,
    )) {
      if (!(JOB_NAMES as readonly string[]).includes(metadata))
        throw new Error(
          `${className} is a @SyncJob for "${metadata}", which is not a job (${JOB_NAMES.join(', ')})`,
        );
      this.register(metadata, (ctx) => instance.run(ctx), className);
    }
  }

  register(job: JobName, handler: JobHandler, by = 'a stand-in'): void {
    if (this.handlers.has(job))
      throw new Error(`a handler for job "${job}" is already registered (again by ${by})`);
    this.handlers.set(job, handler);
  }

  get(job: JobName): JobHandler | undefined {
    return this.handlers.get(job);
  }

  registeredJobs(): JobName[] {
    return [...this.handlers.keys()];
  }

  // Throws, naming them, when any of `jobs` has no handler: a daemon that would schedule a job
  // nobody runs refuses to start rather than log a warning and skip it.
  assertHandled(jobs: readonly JobName[], where: string): void {
    const missing = jobs.filter((job) => !this.handlers.has(job));
    if (missing.length > 0)
      throw new Error(
        `${where}: no handler for job(s) ${missing.join(', ')}; a @SyncJob provider for each must be in a loaded module`,
      );
  }
}

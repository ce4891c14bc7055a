import type { JobHandler, JobName } from './job.types';

// Flows register their handler here (in onModuleInit); cron and the CLI look it up by job name.
// No constructor dependencies, so Nest builds it without @Injectable (and unit tests need no Nest).
export class JobRegistry {
  private readonly handlers = new Map<JobName, JobHandler>();

  register(job: JobName, handler: JobHandler): void {
    if (this.handlers.has(job)) throw new Error(`a handler for job "${job}" is already registered`);
    this.handlers.set(job, handler);
  }

  get(job: JobName): JobHandler | undefined {
    return this.handlers.get(job);
  }

  registeredJobs(): JobName[] {
    return [...this.handlers.keys()];
  }
}

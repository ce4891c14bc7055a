export * from './job.types';
export { JobRegistry } from './job.registry';
export { JobRunner, type RunOutcome, type RunOptions, type RunOutcomeStatus } from './job-runner.service';
export { JobBackoff, jobKey, type BackoffState } from './job-backoff';
export { CronScheduler } from './cron.scheduler';
export { PgBossScheduler } from './pg-boss/pg-boss.scheduler';
export { RUN_STORE, type RunStore, type FinishedRunStatus } from './run-store.port';
export { SchedulerModule } from './scheduler.module';

export * from './job.types';
export { JobRegistry } from './job.registry';
export {
  JobRunner,
  type RunOutcome,
  type RunOptions,
  type RunOutcomeStatus,
  type RunningJob,
} from './job-runner.service';
export { PAUSE_STORE, type PauseStore } from './pause-store.port';
export { JobBackoff, type BackoffState } from './job-backoff';
export { jobKey, parseJobKey, type JobPair } from './job-key';
export { SchedulerDriver } from './scheduler-driver';
export { RUN_STORE, type RunStore, type RunStoreClaim, type FinishedRunStatus } from './run-store.port';
export { SchedulerModule } from './scheduler.module';
export { JobPauseService, isPaused, UnknownTargetError, type PauseView } from './job-pause.service';
export { EarlyRunTrigger, type EarlyRunOutcome } from './early-run.trigger';

import type { JobName } from './job.types';

// The jobs a scheduling daemon puts on cron (all of JOB_NAMES unless a test shell narrows them);
// each must have a @SyncJob handler, or the start fails.
export const SCHEDULED_JOBS = Symbol('SCHEDULED_JOBS');
export type ScheduledJobs = readonly JobName[];

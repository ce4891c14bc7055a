import type { JobName } from './job.types';

// 'queued': a run will start as soon as none of this (brokerage, job) is running; 'coalesced': one
// was already waiting, and it will see this change too; 'skipped': the job is backing off after
// failures or the daemon is stopping, so its cron schedule decides.
export type EarlyRunOutcome = 'queued' | 'coalesced' | 'skipped';

// Asks for a run of a (brokerage, job) before its cron tick, e.g. because the CRM said something
// changed. However many ask while one is waiting, one run follows. An abstract class so it can be
// a Nest injection token: the local scheduler and pg-boss each provide one.
export abstract class EarlyRunTrigger {
  abstract request(brokerageId: string, job: JobName): Promise<EarlyRunOutcome>;
}

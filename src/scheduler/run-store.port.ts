import type { JobCounts } from './job.types';

// The part of the ledger's RunRepository the runner uses (bound to `ledger.runs` in SchedulerModule).
export type FinishedRunStatus = 'succeeded' | 'failed' | 'interrupted';

export interface RunStore {
  start(brokerageId: string, job: string): Promise<{ id: number; startedAt: Date }>;
  finish(
    runId: number,
    outcome: { counts: JobCounts; status: FinishedRunStatus; error?: string },
  ): Promise<unknown>;
}

export const RUN_STORE = Symbol('RUN_STORE');

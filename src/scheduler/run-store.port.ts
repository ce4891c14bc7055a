import type { JobCounts } from './job.types';

// The part of the ledger's RunRepository the runner uses (bound to `ledger.runs` in SchedulerModule).
export type FinishedRunStatus = 'succeeded' | 'failed' | 'interrupted';

// A run started for this process (with what a holder that stopped had left half-done and was put
// right), or the run of the same brokerage and job another live process holds (SQLite: the daemon
// and the operator's `cli sync` on one ledger file; RunRepository.claim).
export type RunStoreClaim =
  | { run: { id: number; startedAt: Date }; recovered: { runs: number; outbox: number; inbox: number } }
  | { heldBy: { runId: number; owner: string; startedAt: Date } };

export interface RunStore {
  claim(brokerageId: string, job: string, how?: { singletonHeld?: boolean }): Promise<RunStoreClaim>;
  finish(
    runId: number,
    outcome: { counts: JobCounts; status: FinishedRunStatus; error?: string },
  ): Promise<unknown>;
}

export const RUN_STORE = Symbol('RUN_STORE');

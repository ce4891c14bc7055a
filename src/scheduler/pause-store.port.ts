// The part of the ledger's PauseRepository the runner reads (bound to `ledger.pauses` in SchedulerModule).
export interface PauseStore {
  // The pause that stops this job ('*' when the whole brokerage is paused), or null.
  pauseOf(brokerageId: string, job: string): Promise<{ job: string; reason: string; pausedAt: Date } | null>;
}

export const PAUSE_STORE = Symbol('PAUSE_STORE');

import type { Clock } from '../common/clock';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface RetentionAges {
  retentionDays: number;
  retentionDeadDays: number;
  // The decision history's own age (HISTORY_RETENTION_DAYS); absent: no history is removed.
  historyRetentionDays?: number;
}

// The cutoffs LedgerRetention.prune takes, from the ages in days the operator configured.
export function retentionCutoffs(
  ages: RetentionAges,
  clock: Clock,
): { olderThan: Date; deadOlderThan: Date; historyOlderThan?: Date } {
  return {
    ...(ages.historyRetentionDays === undefined
      ? {}
      : { historyOlderThan: new Date(clock.nowMs() - ages.historyRetentionDays * DAY_MS) }),
    olderThan: new Date(clock.nowMs() - ages.retentionDays * DAY_MS),
    deadOlderThan: new Date(clock.nowMs() - ages.retentionDeadDays * DAY_MS),
  };
}

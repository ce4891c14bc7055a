import type { Clock } from '../common/clock';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface RetentionAges {
  retentionDays: number;
  retentionDeadDays: number;
}

// The cutoffs LedgerRetention.prune takes, from the ages in days the operator configured.
export function retentionCutoffs(
  ages: RetentionAges,
  clock: Clock,
): { olderThan: Date; deadOlderThan: Date } {
  return {
    olderThan: new Date(clock.nowMs() - ages.retentionDays * DAY_MS),
    deadOlderThan: new Date(clock.nowMs() - ages.retentionDeadDays * DAY_MS),
  };
}

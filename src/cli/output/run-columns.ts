import type { RunCounts } from '../../ledger';
import { formatDate, formatDuration } from './format';
import type { Cell, Column } from './table';

// When a run started, how long it took and what it counted: the same columns wherever the CLI
// lists runs (`runs`, and each job's last run in `status`).
export const RUN_COLUMNS: readonly Column[] = [
  { header: 'STARTED' },
  { header: 'TOOK' },
  { header: 'READ', align: 'right' },
  { header: 'CREATED', align: 'right' },
  { header: 'UPDATED', align: 'right' },
  { header: 'UNCHANGED', align: 'right' },
  { header: 'FAILED', align: 'right' },
];

export interface RunTimes {
  startedAt: string;
  durationMs: number | null;
  counts: RunCounts;
}

// The cells of RUN_COLUMNS; empty for a job never run.
export function runCells(run: RunTimes | null): Cell[] {
  if (!run) return RUN_COLUMNS.map(() => null);
  const { counts } = run;
  return [
    formatDate(run.startedAt),
    formatDuration(run.durationMs),
    counts.read,
    counts.created,
    counts.updated,
    counts.unchanged,
    counts.failed,
  ];
}

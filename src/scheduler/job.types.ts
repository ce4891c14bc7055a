import type { CallPriority } from '../common/call-priority';
import type { LoadedBrokerage } from '../config/config.loader';

export const JOB_NAMES = [
  'crm-changes',
  'offers-reconcile',
  'marketplace',
  'outbox-drain',
  'inbox-drain',
] as const;
export type JobName = (typeof JOB_NAMES)[number];

// Which key of a brokerage's `schedules` drives each job.
export const SCHEDULE_KEY: Record<
  JobName,
  'crmChanges' | 'offersReconcile' | 'marketplace' | 'outboxDrain' | 'inboxDrain'
> = {
  'crm-changes': 'crmChanges',
  'offers-reconcile': 'offersReconcile',
  marketplace: 'marketplace',
  'outbox-drain': 'outboxDrain',
  'inbox-drain': 'inboxDrain',
};

// The catch-up passes (call-priority.ts): their calls give way to those of the jobs that carry an
// agent's action or a service's event when a remote's budget is short.
export const CALL_PRIORITY: Record<JobName, CallPriority> = {
  'crm-changes': 'foreground',
  'offers-reconcile': 'background',
  marketplace: 'background',
  'outbox-drain': 'foreground',
  'inbox-drain': 'foreground',
};

export function isJobName(value: string): value is JobName {
  return (JOB_NAMES as readonly string[]).includes(value);
}

export interface JobCounts {
  read: number;
  created: number;
  updated: number;
  unchanged: number;
  failed: number;
}

export interface JobContext {
  brokerage: LoadedBrokerage;
  // The ledger's run id; null for a dry run, which records nothing.
  runId: number | null;
  // Aborted on shutdown or when the brokerage is removed: stop at the next page boundary.
  signal: AbortSignal;
  dryRun: boolean;
  progress(done: number, total?: number): void;
}

export interface JobResult {
  counts: JobCounts;
  // What the run left for the next one, in words for the operator (a drain that ended on its time
  // budget with work still waiting): `cli sync` prints it.
  left?: string;
}

export type JobHandler = (ctx: JobContext) => Promise<JobResult>;

export function emptyCounts(): JobCounts {
  return { read: 0, created: 0, updated: 0, unchanged: 0, failed: 0 };
}

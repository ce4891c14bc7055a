import type { JobCounts } from '../../scheduler/job.types';

export function addCounts(into: JobCounts, from: Partial<JobCounts>): JobCounts {
  into.read += from.read ?? 0;
  into.created += from.created ?? 0;
  into.updated += from.updated ?? 0;
  into.unchanged += from.unchanged ?? 0;
  into.failed += from.failed ?? 0;
  return into;
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

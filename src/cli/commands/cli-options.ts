import { isJobName, JOB_NAMES, type JobName } from '../../scheduler/job.types';

// Option parsers shared by commands, so flags read the same everywhere.
export function parseLimit(value: string): number {
  const limit = Number(value);
  if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) {
    throw new Error(`--limit must be a whole number from 1 to 10000, got "${value}"`);
  }
  return limit;
}

export function parseJob(value: string): JobName {
  if (!isJobName(value)) throw new Error(`--job must be one of ${JOB_NAMES.join(', ')}, got "${value}"`);
  return value;
}

// `--id 3 --id 4` and `--id 3,4` both give [3, 4].
export function parseIds(value: string, previous: number[] = []): number[] {
  const ids = value.split(',').map((part) => {
    const id = Number(part.trim());
    if (!Number.isInteger(id) || id < 1)
      throw new Error(`--id must be a positive whole number, got "${part}"`);
    return id;
  });
  return [...previous, ...ids];
}

export interface CommonOptions {
  json?: boolean;
  brokerage?: string;
}

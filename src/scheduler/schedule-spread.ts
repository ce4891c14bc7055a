import { createHash } from 'node:crypto';
import { CronTime } from 'cron';
import { DEFAULT_SCHEDULES } from '../config/brokerage-config.schema';
import type { LoadedBrokerage } from '../config/config.loader';
import { SCHEDULE_KEY, type JobName } from './job.types';

// A brokerage's second in the minute, 0-59, the same on every start and every worker: a hash of
// its id, so brokerages added or removed never move the others.
export function brokerageSecond(brokerageId: string): number {
  return createHash('sha256').update(brokerageId).digest().readUInt32BE(0) % 60;
}

// Spreads one schedule by the brokerage's second, so 50 brokerages on default schedules do not all
// fire in the same second (and hit a shared account's secondly limit together):
// - a 5-field expression (minutes) gets the brokerage's second as its seconds field: `*/1 * * * *`
//   runs each minute at second s;
// - a 6-field expression left at the built-in default with a `*/n` seconds field (n divides 60)
//   gets the same step shifted by s mod n: `*/10 * * * * *` becomes `3,13,23,33,43,53 * * * * *`;
// - a seconds field the operator wrote is kept as written.
// The period never changes, only the phase.
export function spreadSchedule(expression: string, brokerageId: string, builtInDefault?: string): string {
  const fields = expression.trim().split(/\s+/);
  const second = brokerageSecond(brokerageId);
  if (fields.length === 5) return [String(second), ...fields].join(' ');
  if (fields.length !== 6 || builtInDefault === undefined || expression.trim() !== builtInDefault)
    return expression;
  const step = /^\*\/(\d+)$/.exec(fields[0]);
  const n = step ? Number(step[1]) : NaN;
  if (!Number.isInteger(n) || n < 1 || 60 % n !== 0) return expression;
  const seconds = Array.from({ length: 60 / n }, (_, i) => (second % n) + i * n);
  return [seconds.join(','), ...fields.slice(1)].join(' ');
}

// The expression a job of this brokerage actually runs on.
export function scheduleOf(brokerage: LoadedBrokerage, job: JobName): string {
  const key = SCHEDULE_KEY[job];
  return spreadSchedule(brokerage.config.schedules[key], brokerage.id, DEFAULT_SCHEDULES[key]);
}

// When a job of this brokerage is next due by its expression alone, where no local cron holds it (a
// pg-boss worker, the CLI); null for an expression cron cannot read.
export function nextScheduledRun(brokerage: LoadedBrokerage, job: JobName): Date | null {
  try {
    return new CronTime(scheduleOf(brokerage, job), 'UTC').sendAt().toJSDate();
  } catch {
    return null;
  }
}

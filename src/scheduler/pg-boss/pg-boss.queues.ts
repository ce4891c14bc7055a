import { CronTime } from 'cron';
import type PgBoss from 'pg-boss';
import type { JobName } from '../job.types';

// One queue per (brokerage, job), named by its jobKey(): pg-boss 10 keeps one schedule per queue
// name, and a `stately` queue holds at most one queued and one active job, which makes each pair a
// singleton across all workers (a slow run never piles up ticks behind it).
export interface SyncJobData {
  brokerageId: string;
  job: JobName;
}

// pg-boss's own cron fires at most once a minute (it evaluates five-field expressions); brokerages
// configured with a seconds field tick from every worker's local cron instead, into the same queue.
export function isMinuteCron(expression: string): boolean {
  return expression.trim().split(/\s+/).length === 5;
}

// Every (brokerage, job) queue, whoever creates it first (a worker, or `sync --once`).
export function syncQueueOptions(name: string, leaseSeconds: number): PgBoss.Queue {
  return {
    name,
    policy: 'stately',
    expireInSeconds: leaseSeconds,
    // A job whose lease ran out (its worker died) runs once more, on whichever worker is free.
    retryLimit: 1,
    retryDelay: 0,
    retentionDays: 1,
  };
}

// A job whose schedule fires at least once a minute is queued once as soon as a worker schedules it:
// a worker (re)started, or the fleet brought up, catches up at once instead of idling until the
// first tick (up to a minute under pg-boss's cron). Rarer jobs (the marketplace, a nightly one) keep
// to their schedule. The stately queue drops the send when one is queued already.
export function runsAtStart(expression: string): boolean {
  const [next, after] = new CronTime(expression, 'UTC').sendAt(2);
  return after.toMillis() - next.toMillis() <= 60_000;
}

import type { OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { EarlyRunTrigger } from './early-run.trigger';
import type { JobName } from './job.types';

// What the daemon needs of whatever puts its (brokerage, job) pairs on a schedule: local cron on a
// SQLite ledger (CronScheduler), pg-boss on a shared PostgreSQL one (PgBossScheduler). Callers
// inject this (or only its EarlyRunTrigger face), never a concrete scheduler. An abstract class so
// it is a Nest token; it also ties start and stop to the application's lifecycle, once for both.
export abstract class SchedulerDriver
  extends EarlyRunTrigger
  implements OnApplicationBootstrap, OnModuleDestroy
{
  // Puts every enabled brokerage's jobs on the schedule and follows config reloads.
  abstract start(): Promise<void>;

  // Stops scheduling, lets the runs in progress checkpoint (up to the shutdown timeout), then returns.
  abstract stop(): Promise<void>;

  // When the pair is next due on its schedule; null when it is not scheduled (unknown or disabled
  // brokerage, no handler).
  abstract nextRun(brokerageId: string, job: JobName): Date | null;

  // The jobKey()s of the pairs this process schedules, sorted.
  abstract scheduled(): string[];

  onApplicationBootstrap(): Promise<void> {
    return this.start();
  }

  onModuleDestroy(): Promise<void> {
    return this.stop();
  }
}

import { Module, type DynamicModule, type Provider } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { ScheduleModule } from '@nestjs/schedule';
import { PauseRepository, RunRepository } from '../ledger';
import { CronScheduler } from './cron.scheduler';
import { DrainWhenQueued } from './drain-when-queued';
import { EarlyRunTrigger } from './early-run.trigger';
import { JobBackoff } from './job-backoff';
import { JobPauseCollector } from './job-pause.collector';
import { JobPauseService } from './job-pause.service';
import { JobRegistry } from './job.registry';
import { JobRunner } from './job-runner.service';
import { JOB_NAMES, type JobName } from './job.types';
import { LocalEarlyRunTrigger } from './local-early-run.trigger';
import { PgBossOnce } from './pg-boss/pg-boss.once';
import { PgBossScheduler } from './pg-boss/pg-boss.scheduler';
import { PAUSE_STORE } from './pause-store.port';
import { RUN_STORE } from './run-store.port';
import { SCHEDULED_JOBS } from './scheduled-jobs';
import { SchedulerDriver } from './scheduler-driver';

export interface SchedulerModuleOptions {
  // The daemon schedules jobs; the CLI only runs them when asked.
  cron: boolean;
  // The ledger is PostgreSQL, shared with other workers: pg-boss schedules instead of local cron.
  sharedLedger?: boolean;
  // The jobs put on cron; all of them unless a shell runs stand-ins for a few (the scheduler tests).
  jobs?: readonly JobName[];
}

// JobRegistry (filled from @SyncJob providers) and JobRunner for every entry point; a scheduler only in the daemon (`cron: true`).
// Expects the ledger, Clock, ConfigService and MetricsService from global modules (see AppModule).
@Module({})
export class SchedulerModule {
  static forRoot(options: SchedulerModuleOptions): DynamicModule {
    const local = options.cron && !options.sharedLedger;
    const shared = options.cron && options.sharedLedger === true;
    // The daemon's one scheduler, behind SchedulerDriver; the CLI schedules nothing.
    const driver: Provider[] = local
      ? [CronScheduler, { provide: SchedulerDriver, useExisting: CronScheduler }]
      : shared
        ? [PgBossScheduler, { provide: SchedulerDriver, useExisting: PgBossScheduler }]
        : [];
    // Early runs go through the driver (on a shared ledger, pg-boss, so no two workers run one
    // pair); the CLI, which has none, runs them on the local runner, as CronScheduler does.
    const earlyRuns: Provider[] = [
      ...(shared ? [] : [LocalEarlyRunTrigger]),
      { provide: EarlyRunTrigger, useExisting: options.cron ? SchedulerDriver : LocalEarlyRunTrigger },
    ];
    return {
      module: SchedulerModule,
      global: true,
      imports: [DiscoveryModule, ...(local ? [ScheduleModule.forRoot()] : [])],
      providers: [
        { provide: SCHEDULED_JOBS, useValue: options.jobs ?? JOB_NAMES },
        { provide: RUN_STORE, useExisting: RunRepository },
        { provide: PAUSE_STORE, useExisting: PauseRepository },
        JobRegistry,
        JobRunner,
        JobBackoff,
        JobPauseService,
        JobPauseCollector,
        PgBossOnce,
        ...driver,
        ...earlyRuns,
        // Only the daemon drains what it queues at once; the CLI leaves the outbox to it.
        ...(options.cron ? [DrainWhenQueued] : []),
      ],
      exports: [
        EarlyRunTrigger,
        JobRegistry,
        JobRunner,
        JobBackoff,
        JobPauseService,
        PgBossOnce,
        ...(options.cron ? [SchedulerDriver] : []),
      ],
    };
  }
}

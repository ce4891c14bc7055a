import { Module, type DynamicModule, type Provider } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { ScheduleModule } from '@nestjs/schedule';
import { PauseRepository, RunRepository } from '../ledger';
import { CronScheduler } from './cron.scheduler';
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
    const schedulers: Provider[] = [...(local ? [CronScheduler] : []), ...(shared ? [PgBossScheduler] : [])];
    // On a shared ledger an early run goes through pg-boss (so no two workers run one pair);
    // otherwise, and for the CLI, the local runner.
    const earlyRuns: Provider[] = shared
      ? [{ provide: EarlyRunTrigger, useExisting: PgBossScheduler }]
      : [LocalEarlyRunTrigger, { provide: EarlyRunTrigger, useExisting: LocalEarlyRunTrigger }];
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
        ...schedulers,
        ...earlyRuns,
      ],
      exports: [
        EarlyRunTrigger,
        JobRegistry,
        JobRunner,
        JobBackoff,
        JobPauseService,
        PgBossOnce,
        ...(schedulers as (typeof CronScheduler)[]),
      ],
    };
  }
}

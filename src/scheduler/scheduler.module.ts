import { Module, type DynamicModule, type Provider } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';
import { PauseRepository, RunRepository } from '../ledger';
import { CronScheduler } from './cron.scheduler';
import { JobBackoff } from './job-backoff';
import { JobPauseService } from './job-pause.service';
import { JobRegistry } from './job.registry';
import { JobRunner } from './job-runner.service';
import { PgBossOnce } from './pg-boss/pg-boss.once';
import { PgBossScheduler } from './pg-boss/pg-boss.scheduler';
import { PAUSE_STORE } from './pause-store.port';
import { RUN_STORE } from './run-store.port';

export interface SchedulerModuleOptions {
  // The daemon schedules jobs; the CLI only runs them when asked.
  cron: boolean;
  // The ledger is PostgreSQL, shared with other workers: pg-boss schedules instead of local cron.
  sharedLedger?: boolean;
}

// JobRegistry and JobRunner for every entry point; a scheduler only in the daemon (`cron: true`).
// Expects the ledger, Clock, ConfigService and MetricsService from global modules (see AppModule).
@Module({})
export class SchedulerModule {
  static forRoot(options: SchedulerModuleOptions): DynamicModule {
    const local = options.cron && !options.sharedLedger;
    const shared = options.cron && options.sharedLedger === true;
    const schedulers: Provider[] = [...(local ? [CronScheduler] : []), ...(shared ? [PgBossScheduler] : [])];
    return {
      module: SchedulerModule,
      global: true,
      imports: local ? [ScheduleModule.forRoot()] : [],
      providers: [
        { provide: RUN_STORE, useExisting: RunRepository },
        { provide: PAUSE_STORE, useExisting: PauseRepository },
        JobRegistry,
        JobRunner,
        JobBackoff,
        JobPauseService,
        PgBossOnce,
        ...schedulers,
      ],
      exports: [
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

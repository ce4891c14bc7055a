import { Module, type DynamicModule } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';
import { PauseRepository, RunRepository } from '../ledger';
import { CronScheduler } from './cron.scheduler';
import { JobBackoff } from './job-backoff';
import { JobPauseService } from './job-pause.service';
import { JobRegistry } from './job.registry';
import { JobRunner } from './job-runner.service';
import { PAUSE_STORE } from './pause-store.port';
import { RUN_STORE } from './run-store.port';

// JobRegistry and JobRunner for every entry point; the cron part only in the daemon (`cron: true`).
// Expects the ledger, Clock, ConfigService and MetricsService from global modules (see AppModule).
@Module({})
export class SchedulerModule {
  static forRoot(options: { cron: boolean }): DynamicModule {
    return {
      module: SchedulerModule,
      global: true,
      imports: options.cron ? [ScheduleModule.forRoot()] : [],
      providers: [
        { provide: RUN_STORE, useExisting: RunRepository },
        { provide: PAUSE_STORE, useExisting: PauseRepository },
        JobRegistry,
        JobRunner,
        JobBackoff,
        JobPauseService,
        ...(options.cron ? [CronScheduler] : []),
      ],
      exports: [
        JobRegistry,
        JobRunner,
        JobBackoff,
        JobPauseService,
        ...(options.cron ? [CronScheduler] : []),
      ],
    };
  }
}

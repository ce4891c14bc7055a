import { Module, type DynamicModule } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';
import { CronScheduler } from './cron.scheduler';
import { JobBackoff } from './job-backoff';
import { JobRegistry } from './job.registry';
import { JobRunner } from './job-runner.service';

// JobRegistry and JobRunner for every entry point; the cron part only in the daemon (`cron: true`).
// Expects RUN_STORE, Clock, ConfigService and MetricsService from global modules (see AppModule).
@Module({})
export class SchedulerModule {
  static forRoot(options: { cron: boolean }): DynamicModule {
    return {
      module: SchedulerModule,
      global: true,
      imports: options.cron ? [ScheduleModule.forRoot()] : [],
      providers: [JobRegistry, JobRunner, JobBackoff, ...(options.cron ? [CronScheduler] : [])],
      exports: [JobRegistry, JobRunner, JobBackoff, ...(options.cron ? [CronScheduler] : [])],
    };
  }
}

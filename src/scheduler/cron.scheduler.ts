import { Inject, Injectable, Logger } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { CronJob } from 'cron';
import { DAEMON_SETTINGS } from '../config/config.module';
import { ConfigService } from '../config/config.service';
import type { ConfigDiff } from '../config/config-diff';
import type { LoadedBrokerage } from '../config/config.loader';
import type { DaemonSettings } from '../config/daemon-settings';
import { queuedRemoteWrites } from './early-drain';
import type { EarlyRunOutcome } from './early-run.trigger';
import { JobBackoff } from './job-backoff';
import { isJobKeyOf, jobKey, parseJobKey } from './job-key';
import { JobRegistry } from './job.registry';
import { JobRunner } from './job-runner.service';
import type { JobName } from './job.types';
import { LocalEarlyRunTrigger } from './local-early-run.trigger';
import { scheduleOf } from './schedule-spread';
import { SCHEDULED_JOBS, type ScheduledJobs } from './scheduled-jobs';
import { SchedulerDriver } from './scheduler-driver';

// Puts every (enabled brokerage x registered job) on its cron, follows config reloads, and stops
// everything on shutdown. Backoff applies to cron ticks only; the CLI always runs when asked.
@Injectable()
export class CronScheduler extends SchedulerDriver {
  private readonly logger = new Logger(CronScheduler.name);
  private unsubscribe: (() => void) | undefined;
  private readonly ticks = new Set<Promise<unknown>>();

  constructor(
    private readonly registry: SchedulerRegistry,
    private readonly jobs: JobRegistry,
    private readonly runner: JobRunner,
    private readonly backoff: JobBackoff,
    private readonly config: ConfigService,
    @Inject(DAEMON_SETTINGS) private readonly settings: DaemonSettings,
    @Inject(SCHEDULED_JOBS) private readonly scheduledJobs: ScheduledJobs,
    private readonly early: LocalEarlyRunTrigger,
  ) {
    super();
  }

  start(): Promise<void> {
    this.jobs.assertHandled(this.scheduledJobs, 'cannot schedule');
    for (const brokerage of this.config.brokerages()) this.scheduleBrokerage(brokerage);
    this.unsubscribe = this.config.onChange((diff) => this.apply(diff));
    return Promise.resolve();
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    for (const name of this.ownJobNames()) {
      void this.registry.getCronJob(name).stop();
      this.registry.deleteCronJob(name);
    }
    await this.runner.shutdown(this.settings.shutdownTimeoutMs);
    await Promise.allSettled([...this.ticks]);
  }

  apply(diff: ConfigDiff): void {
    for (const brokerage of diff.removed) {
      this.unscheduleBrokerage(brokerage.id);
      this.runner.abortBrokerage(brokerage.id);
      this.backoff.forgetBrokerage(brokerage.id);
    }
    for (const brokerage of diff.changed) {
      this.unscheduleBrokerage(brokerage.id);
      this.scheduleBrokerage(brokerage);
    }
    for (const brokerage of diff.added) this.scheduleBrokerage(brokerage);
  }

  // Names in the SchedulerRegistry, which are the pairs' jobKey()s.
  scheduled(): string[] {
    return this.ownJobNames().sort();
  }

  // One process: the local trigger waits for the run in progress, then runs in this process.
  request(brokerageId: string, job: JobName): Promise<EarlyRunOutcome> {
    return this.early.request(brokerageId, job);
  }

  // When cron next ticks this job (null when it is not scheduled: disabled, or no handler).
  nextRun(brokerageId: string, job: JobName): Date | null {
    const name = jobKey(brokerageId, job);
    if (!this.registry.doesExist('cron', name)) return null;
    return this.registry.getCronJob(name).nextDate().toJSDate();
  }

  // Also what a cron tick calls; exposed so tests can tick without waiting for the clock.
  async tick(brokerageId: string, job: JobName): Promise<void> {
    const key = jobKey(brokerageId, job);
    if (this.backoff.shouldSkip(key)) {
      const state = this.backoff.state(key);
      this.logger.warn(
        `backing off ${job} for ${brokerageId} after ${state.consecutiveFailures} failure(s); ${state.ticksToSkip} more tick(s) to skip`,
      );
      return;
    }
    const outcome = await this.runner.run(brokerageId, job);
    if (outcome.status === 'failed') this.backoff.recordFailure(key);
    else if (outcome.status === 'succeeded') this.backoff.recordSuccess(key);
    if (queuedRemoteWrites(outcome)) void this.early.request(brokerageId, 'outbox-drain');
  }

  private scheduleBrokerage(brokerage: LoadedBrokerage): void {
    if (brokerage.config.enabled === false) {
      this.logger.log(`brokerage ${brokerage.id} is disabled; not scheduled`);
      return;
    }
    for (const job of this.scheduledJobs) {
      const expression = scheduleOf(brokerage, job);
      const cron = CronJob.from({
        cronTime: expression,
        onTick: () => {
          const tick = this.tick(brokerage.id, job).catch((error: unknown) =>
            this.logger.error(`cron tick of ${job} for ${brokerage.id} failed: ${String(error)}`),
          );
          this.ticks.add(tick);
          void tick.finally(() => this.ticks.delete(tick));
        },
        start: false,
      });
      this.registry.addCronJob(jobKey(brokerage.id, job), cron);
      cron.start();
    }
    this.logger.log(`scheduled brokerage ${brokerage.id}`);
  }

  private unscheduleBrokerage(brokerageId: string): void {
    for (const name of this.ownJobNames()) {
      if (!isJobKeyOf(name, brokerageId)) continue;
      void this.registry.getCronJob(name).stop();
      this.registry.deleteCronJob(name);
    }
  }

  private ownJobNames(): string[] {
    return [...this.registry.getCronJobs().keys()].filter((name) => parseJobKey(name) !== undefined);
  }
}

import { Inject, Injectable, Logger } from '@nestjs/common';
import { CronJob } from 'cron';
import type PgBoss from 'pg-boss';
import { ConfigService } from '../../config/config.service';
import type { ConfigDiff } from '../../config/config-diff';
import type { LoadedBrokerage } from '../../config/config.loader';
import { DAEMON_SETTINGS, type DaemonSettings } from '../../config/daemon-settings';
import { Ledger, withSessionAdvisoryLock, workerDeath } from '../../ledger';
import { MetricsService } from '../../observability/metrics/metrics.service';
import { queuedRemoteWrites } from '../early-drain';
import type { EarlyRunOutcome } from '../early-run.trigger';
import { isOwnJobKey, jobKey } from '../job-key';
import { JobRegistry } from '../job.registry';
import { JobRunner } from '../job-runner.service';
import { JOB_NAMES, type JobName } from '../job.types';
import { nextScheduledRun, scheduleOf } from '../schedule-spread';
import { SCHEDULED_JOBS, type ScheduledJobs } from '../scheduled-jobs';
import { SchedulerDriver } from '../scheduler-driver';
import { DeadWorkerTakeover } from './dead-worker.takeover';
import { PgBossDispatcher } from './pg-boss.dispatcher';
import { createPgBoss } from './pg-boss.engine';
import { isMinuteCron, runsAtStart, syncQueueOptions, type SyncJobData } from './pg-boss.queues';
import { PgBossTables } from './pg-boss.tables';
import { SingletonRun } from './singleton-run';
import { WorkerHeartbeat } from './worker-heartbeat';

// Any fixed number shared by every worker; names the schedule-setup lock in pg_locks.
const SCHEDULE_SETUP_LOCK_ID = 0x73636864; // 'schd'

// The scheduler of a shared (PostgreSQL) ledger, in place of CronScheduler: every (enabled brokerage
// x registered job) is a pg-boss queue with policy `stately`, fed by pg-boss's cron (or, for
// schedules with a seconds field, by each worker's local cron), and worked by every worker through
// one fetch loop that takes jobs only while the worker has a free slot (PgBossDispatcher). pg-boss
// lets one worker at a time hold a pair. Every worker beats (WorkerHeartbeat); one that stops beating
// (killed, host lost) has its jobs cancelled and queued again by whichever worker notices first
// (DeadWorkerTakeover), and the next holder takes over what the dead one left (RunRepository.claim).
// The lease (pg-boss expiring a job held too long) is the backstop. A live worker that was taken for
// dead (stalled past the limit) stops the runs it lost at their next checkpoint (fenceTakenOver).
@Injectable()
export class PgBossScheduler extends SchedulerDriver {
  private readonly logger = new Logger(PgBossScheduler.name);
  private readonly singleton: SingletonRun;
  private readonly localTicks = new Map<string, CronJob>();
  private boss: PgBoss | undefined;
  private dispatcher: PgBossDispatcher | undefined;
  private heartbeat: WorkerHeartbeat | undefined;
  private stopping = false;
  private unsubscribe: (() => void) | undefined;
  private changes: Promise<void> = Promise.resolve();

  constructor(
    private readonly jobs: JobRegistry,
    private readonly runner: JobRunner,
    private readonly config: ConfigService,
    private readonly ledger: Ledger,
    @Inject(DAEMON_SETTINGS) private readonly settings: DaemonSettings,
    @Inject(SCHEDULED_JOBS) private readonly scheduledJobs: ScheduledJobs,
    private readonly metrics: MetricsService,
  ) {
    super();
    this.singleton = new SingletonRun(runner, settings.jobLeaseSeconds);
  }

  // An early run is one more job in the pair's stately queue, as known work: pg-boss keeps at most
  // one queued, so a request while one waits is coalesced into it (which is then known work too),
  // and whichever worker is free runs it.
  async request(brokerageId: string, job: JobName): Promise<EarlyRunOutcome> {
    const name = jobKey(brokerageId, job);
    if (!this.boss || !this.dispatcher?.works(name)) return 'skipped';
    const data: SyncJobData = { brokerageId, job };
    return (await this.dispatcher.sendKnownWork(name, data)) ? 'queued' : 'coalesced';
  }

  async start(): Promise<void> {
    this.jobs.assertHandled(this.scheduledJobs, 'cannot schedule');
    const boss = await createPgBoss(this.settings, 'worker');
    await boss.start();
    this.boss = boss;
    this.dispatcher = new PgBossDispatcher(boss, this.settings.workerConcurrency, (data) =>
      this.runHeld(data),
    );
    // Work starts before this worker's turn at the schedule set-up: while the workers of a fleet
    // brought up together take turns (a few seconds each on a busy machine), the jobs the first one
    // queued are taken by all of them, not by the first alone. A queue not yet created has no jobs.
    for (const brokerage of this.config.brokerages()) {
      if (brokerage.config.enabled === false) continue;
      for (const job of this.scheduledJobs) this.dispatcher.add(jobKey(brokerage.id, job));
    }
    this.dispatcher.start();
    const takeover = new DeadWorkerTakeover(
      new PgBossTables(boss.getDb()),
      this.dispatcher,
      this.metrics,
      workerDeath(this.settings.workerHeartbeatSeconds),
    );
    this.heartbeat = new WorkerHeartbeat(
      this.ledger.heartbeats,
      this.ledger.owners.self,
      this.settings.workerHeartbeatSeconds,
      async ({ onTime }) => {
        await this.fenceTakenOver();
        if (!this.stopping && onTime) await takeover.reap();
      },
    );
    await this.heartbeat.start();
    await this.exclusively(async () => {
      const wanted = new Set<string>();
      for (const brokerage of this.config.brokerages()) {
        for (const name of await this.scheduleBrokerage(brokerage)) wanted.add(name);
      }
      await this.dropSchedulesExcept(wanted);
    });
    this.unsubscribe = this.config.onChange((diff) => {
      this.changes = this.changes.then(() =>
        this.exclusively(() => this.apply(diff)).catch((error: unknown) =>
          this.logger.error(`rescheduling after a config change failed: ${String(error)}`),
        ),
      );
    });
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.unsubscribe?.();
    await this.changes;
    for (const tick of this.localTicks.values()) void tick.stop();
    this.localTicks.clear();
    const boss = this.boss;
    if (!boss) return;
    // Stop fetching, let the running jobs checkpoint (their pg-boss jobs then complete), then stop.
    const stopped = this.dispatcher?.stop();
    await this.runner.shutdown(this.settings.shutdownTimeoutMs);
    await stopped;
    // Beating until here: a worker finishing its runs is not dead. Its row goes now.
    await this.heartbeat?.stop();
    this.heartbeat = undefined;
    await boss.stop({ graceful: true, wait: true, timeout: 5000 }).catch(() => undefined);
    this.boss = undefined;
  }

  // Queue names (jobKey()s) this worker works, sorted.
  scheduled(): string[] {
    return this.dispatcher?.worked() ?? [];
  }

  // pg-boss's cron (or a local tick) fires by the expression, wherever the job then runs.
  nextRun(brokerageId: string, job: JobName): Date | null {
    const brokerage = this.config.get(brokerageId);
    if (!brokerage || !this.dispatcher?.works(jobKey(brokerageId, job))) return null;
    return nextScheduledRun(brokerage, job);
  }

  async apply(diff: ConfigDiff): Promise<void> {
    for (const brokerage of diff.removed) {
      await this.unscheduleBrokerage(brokerage.id);
      this.runner.abortBrokerage(brokerage.id);
    }
    for (const brokerage of diff.changed) {
      await this.unscheduleBrokerage(brokerage.id);
      await this.scheduleBrokerage(brokerage);
    }
    for (const brokerage of diff.added) await this.scheduleBrokerage(brokerage);
  }

  private async scheduleBrokerage(brokerage: LoadedBrokerage): Promise<string[]> {
    const boss = this.boss!;
    if (brokerage.config.enabled === false) {
      this.logger.log(`brokerage ${brokerage.id} is disabled; not scheduled`);
      return [];
    }
    const names: string[] = [];
    for (const job of this.scheduledJobs) {
      const name = jobKey(brokerage.id, job);
      const data: SyncJobData = { brokerageId: brokerage.id, job };
      await this.ensureQueue(name);
      const expression = scheduleOf(brokerage, job);
      if (isMinuteCron(expression)) {
        await boss.schedule(name, expression, data, { tz: localTimeZone() });
      } else {
        await boss.unschedule(name);
        this.startLocalTick(name, expression, data);
      }
      this.dispatcher!.add(name);
      if (runsAtStart(expression) && (await boss.send(name, data))) this.dispatcher!.nudge();
      names.push(name);
    }
    this.logger.log(`scheduled brokerage ${brokerage.id} on pg-boss`);
    return names;
  }

  private async unscheduleBrokerage(brokerageId: string): Promise<void> {
    const boss = this.boss!;
    for (const job of JOB_NAMES) {
      const name = jobKey(brokerageId, job);
      void this.localTicks.get(name)?.stop();
      this.localTicks.delete(name);
      if (!this.dispatcher!.remove(name)) continue;
      await boss.unschedule(name);
    }
  }

  // Workers starting together would create the same queues and schedules at once, which deadlocks
  // inside pg-boss: they take turns under a session advisory lock instead.
  private exclusively(work: () => Promise<void>): Promise<void> {
    return withSessionAdvisoryLock(this.ledger.dataSource, SCHEDULE_SETUP_LOCK_ID, work);
  }

  private async ensureQueue(name: string): Promise<void> {
    const boss = this.boss!;
    if (await boss.getQueue(name)) return;
    await boss.createQueue(name, syncQueueOptions(name, this.settings.jobLeaseSeconds));
  }

  private startLocalTick(name: string, expression: string, data: SyncJobData): void {
    const tick = CronJob.from({
      cronTime: expression,
      // A tick while one is queued is dropped by the stately queue (send answers null).
      onTick: () => {
        void this.boss
          ?.send(name, data)
          .then((id) => {
            if (id) this.dispatcher?.nudge();
          })
          .catch((error: unknown) => this.logger.error(`could not queue ${name}: ${String(error)}`));
      },
      start: true,
    });
    this.localTicks.set(name, tick);
  }

  // This worker's runs another worker marked interrupted (it took the pair over, taking this worker
  // for dead) stop at their next checkpoint.
  private async fenceTakenOver(): Promise<void> {
    const mine = this.runner.running().flatMap((r) => (r.runId === null ? [] : [r.runId]));
    const lost = await this.ledger.runs.notRunning(mine);
    if (lost.length > 0) this.runner.abortTakenOver(lost);
  }

  private async runHeld(data: SyncJobData): Promise<void> {
    // A failed run is recorded in the ledger and retried by the next tick, as with CronScheduler;
    // only a worker that never answers (dead) gets its job retried by pg-boss.
    const outcome = await this.singleton.run(data.brokerageId, data.job);
    // Queued now (dropped if one is queued already) rather than left to the drain's next tick.
    if (queuedRemoteWrites(outcome)) await this.queueDrain(data.brokerageId);
  }

  private async queueDrain(brokerageId: string): Promise<void> {
    const name = jobKey(brokerageId, 'outbox-drain');
    if (!this.dispatcher?.works(name)) return;
    await this.dispatcher.sendKnownWork(name, { brokerageId, job: 'outbox-drain' });
  }

  // Schedules of brokerages no longer in the config (e.g. removed while every worker was down).
  private async dropSchedulesExcept(wanted: Set<string>): Promise<void> {
    const boss = this.boss!;
    for (const schedule of await boss.getSchedules()) {
      if (isOwnJobKey(schedule.name) && !wanted.has(schedule.name)) await boss.unschedule(schedule.name);
    }
  }
}

function localTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

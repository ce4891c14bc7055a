import { Injectable, Optional } from '@nestjs/common';
import { CronTime } from 'cron';
import { Clock } from '../../common/clock';
import { ConfigService } from '../../config/config.service';
import {
  AlertRepository,
  InboxRepository,
  OutboxRepository,
  RecordErrorRepository,
  RunRepository,
  type Alert,
  type ChannelHealth,
  type InboxEvent,
  type OutboxCommand,
  type RecordError,
  type Run,
} from '../../ledger';
import { CronScheduler } from '../../scheduler/cron.scheduler';
import { JobBackoff, jobKey, type BackoffState } from '../../scheduler/job-backoff';
import { brokeragePause, isPaused, JobPauseService, type PauseView } from '../../scheduler/job-pause.service';
import { JobRunner, type RunningJob } from '../../scheduler/job-runner.service';
import { JOB_NAMES, SCHEDULE_KEY, type JobName } from '../../scheduler/job.types';

// How many rows of each list the page shows per brokerage (the CLI lists the rest).
export const PAGE_LIST_LIMIT = 50;

export interface JobView {
  job: JobName;
  paused?: PauseView;
  running?: RunningJob;
  lastRun?: Run;
  nextRun: Date | null;
  backoff: BackoffState;
}

export interface BrokerageView {
  id: string;
  file: string | null;
  enabled: boolean;
  // `crm.recordUrl` of the brokerage's file: where its CRM records open.
  recordUrl?: string;
  paused?: PauseView;
  jobs: JobView[];
  outbox: Record<string, number>;
  inbox: Record<string, number>;
  errors: RecordError[];
  commands: OutboxCommand[];
  events: InboxEvent[];
}

export interface ConsoleSnapshot {
  at: Date;
  pid: number;
  // Open alerts, oldest first, and how each alert channel delivers.
  alerts: Alert[];
  channels: ChannelHealth[];
  brokerages: BrokerageView[];
}

// Everything the status page shows, read in one pass from the ledger and the running scheduler.
@Injectable()
export class ConsoleSnapshotService {
  constructor(
    private readonly config: ConfigService,
    private readonly runs: RunRepository,
    private readonly outbox: OutboxRepository,
    private readonly inbox: InboxRepository,
    private readonly recordErrors: RecordErrorRepository,
    private readonly alerts: AlertRepository,
    private readonly pauses: JobPauseService,
    private readonly runner: JobRunner,
    private readonly backoff: JobBackoff,
    // Absent on a PostgreSQL ledger, where pg-boss schedules: the next run is then read from the cron
    // expression itself.
    @Optional() private readonly cron: CronScheduler | null,
    private readonly clock: Clock,
  ) {}

  async read(): Promise<ConsoleSnapshot> {
    const [lastRuns, pauses] = [await this.runs.lastRuns(), await this.pauses.list()];
    const running = this.runner.running();
    const brokerages: BrokerageView[] = [];
    for (const brokerage of [...this.config.brokerages()].sort((a, b) => a.id.localeCompare(b.id))) {
      const id = brokerage.id;
      const jobs = JOB_NAMES.map((job) => ({
        job,
        paused: isPaused(pauses, id, job),
        running: running.find((r) => r.brokerageId === id && r.job === job),
        lastRun: lastRuns.find((r) => r.brokerageId === id && r.job === job),
        nextRun: this.cron
          ? this.cron.nextRun(id, job)
          : nextCronDate(brokerage.config.schedules[SCHEDULE_KEY[job]]),
        backoff: this.backoff.state(jobKey(id, job)),
      }));
      brokerages.push({
        id,
        file: brokerage.file,
        enabled: brokerage.config.enabled !== false,
        recordUrl: brokerage.config.crm.recordUrl,
        paused: brokeragePause(pauses, id),
        jobs,
        outbox: await this.outbox.depth(id),
        inbox: await this.inbox.depth(id),
        errors: await this.recordErrors.listOpen({ brokerageId: id, limit: PAGE_LIST_LIMIT }),
        commands: await this.outbox.listByState(id, ['failed', 'dead', 'unknown'], PAGE_LIST_LIMIT),
        events: await this.inbox.list({
          brokerageId: id,
          statuses: ['dead', 'flagged'],
          limit: PAGE_LIST_LIMIT,
        }),
      });
    }
    const alerts = await this.alerts.list({ state: 'firing', limit: PAGE_LIST_LIMIT });
    const channels = await this.alerts.channelHealth();
    return { at: this.clock.now(), pid: process.pid, alerts, channels, brokerages };
  }
}

function nextCronDate(expression: string): Date | null {
  try {
    return new CronTime(expression, 'UTC').sendAt().toJSDate();
  } catch {
    return null;
  }
}

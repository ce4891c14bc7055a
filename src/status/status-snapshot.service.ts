import { Injectable, Optional } from '@nestjs/common';
import { Clock } from '../common/clock';
import { formatProblem } from '../config/config-error';
import { ConfigService } from '../config/config.service';
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
} from '../ledger';
import { JobBackoff, type BackoffState } from '../scheduler/job-backoff';
import { jobKey } from '../scheduler/job-key';
import { brokeragePause, isPaused, JobPauseService, type PauseView } from '../scheduler/job-pause.service';
import { JobRunner, type RunningJob } from '../scheduler/job-runner.service';
import { JOB_NAMES, type JobName } from '../scheduler/job.types';
import { nextScheduledRun } from '../scheduler/schedule-spread';
import { SchedulerDriver } from '../scheduler/scheduler-driver';
import { OfferFiguresReader, type OfferFigures } from '../sync/offer-clocks/offer-figures';

// How many rows of each list the page shows per brokerage (the CLI lists the rest).
export const PAGE_LIST_LIMIT = 50;

export interface JobView {
  job: JobName;
  paused?: PauseView;
  // The job's own pause when its brokerage's pause hides it (it outlasts the brokerage's resume).
  ownPause?: PauseView;
  running?: RunningJob;
  lastRun?: Run;
  nextRun: Date | null;
  backoff: BackoffState;
}

export interface BrokerageView {
  id: string;
  file: string | null;
  enabled: boolean;
  // Why its file failed to load at the last reload (it runs on its last good config, or not at all).
  loadProblems: string[];
  // What this process lacks (`X is not set here`) when that is all that keeps the file from loading:
  // another process, the daemon, may load it (cli status asks the ledger). Empty otherwise.
  missingHere: string[];
  // `crm.recordUrl` of the brokerage's file: where its CRM records open.
  recordUrl?: string;
  paused?: PauseView;
  jobs: JobView[];
  outbox: Record<string, number>;
  inbox: Record<string, number>;
  errors: RecordError[];
  commands: OutboxCommand[];
  events: InboxEvent[];
  // How many there are in all (the lists hold the first PAGE_LIST_LIMIT).
  totals: { errors: number; commands: number; events: number };
  offers: OfferFigures;
}

export interface StatusSnapshot {
  at: Date;
  pid: number;
  // Open alerts, oldest first, and how each alert channel delivers.
  alerts: Alert[];
  channels: ChannelHealth[];
  brokerages: BrokerageView[];
}

// What the status page and `cli status` show, read in one pass from the config, the ledger and (in
// the daemon) the running scheduler: one reading for both, so they never tell two stories.
@Injectable()
export class StatusSnapshotService {
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
    // Absent in the CLI, which schedules nothing: the next run is then read from the cron expression.
    @Optional() private readonly scheduler: SchedulerDriver | null,
    private readonly figures: OfferFiguresReader,
    private readonly clock: Clock,
  ) {}

  // `only`: one brokerage (cli status --brokerage).
  async read(only?: string): Promise<StatusSnapshot> {
    const [lastRuns, pauses] = [await this.runs.lastRuns(only), await this.pauses.list(only)];
    const running = this.runner.running();
    const brokerages: BrokerageView[] = [];
    const unready = this.config.unreadyBrokerages();
    const loaded = this.config.brokerages();
    // Problems first: brokerages whose file failed to load before the others.
    // Brokerages in the config, those failing to load, and any the ledger still remembers (removed
    // from the config since).
    const remembered = lastRuns.map((r) => r.brokerageId);
    const ids = [...new Set([...loaded.map((b) => b.id), ...unready.keys(), ...remembered])]
      .filter((id) => only === undefined || id === only)
      .sort((a, b) => Number(unready.has(b)) - Number(unready.has(a)) || a.localeCompare(b));
    for (const id of ids) {
      const brokerage = loaded.find((b) => b.id === id);
      const problems = unready.get(id) ?? [];
      const loadProblems = problems.map(formatProblem);
      const missingHere = problems.every((p) => p.hereOnly !== undefined)
        ? [...new Set(problems.map((p) => p.hereOnly ?? ''))]
        : [];
      const jobs = JOB_NAMES.map((job) => {
        const paused = isPaused(pauses, id, job);
        const own = pauses.find((p) => p.brokerageId === id && p.job === job);
        return {
          job,
          paused,
          ...(own && own !== paused ? { ownPause: own } : {}),
          running: running.find((r) => r.brokerageId === id && r.job === job),
          lastRun: lastRuns.find((r) => r.brokerageId === id && r.job === job),
          nextRun: !brokerage
            ? null
            : this.scheduler
              ? this.scheduler.nextRun(id, job)
              : nextScheduledRun(brokerage, job),
          backoff: this.backoff.state(jobKey(id, job)),
        };
      });
      const outbox = await this.outbox.depth(id);
      const inbox = await this.inbox.depth(id);
      brokerages.push({
        id,
        file: brokerage?.file ?? null,
        enabled: brokerage ? brokerage.config.enabled !== false : false,
        loadProblems,
        missingHere,
        recordUrl: brokerage?.config.crm.recordUrl,
        paused: brokeragePause(pauses, id),
        jobs,
        outbox,
        inbox,
        errors: await this.recordErrors.listOpen({ brokerageId: id, limit: PAGE_LIST_LIMIT }),
        commands: await this.outbox.listByState(id, ['failed', 'dead', 'unknown'], PAGE_LIST_LIMIT),
        events: await this.inbox.list({
          brokerageId: id,
          statuses: ['dead', 'flagged'],
          limit: PAGE_LIST_LIMIT,
        }),
        totals: {
          errors: await this.recordErrors.countOpen(id),
          commands: outbox.failed + outbox.dead + outbox.unknown,
          events: inbox.dead + inbox.flagged,
        },
        offers: await this.figures.read(id),
      });
    }
    const alerts = await this.alerts.list({ state: 'firing', brokerageId: only, limit: PAGE_LIST_LIMIT });
    const channels = await this.alerts.channelHealth();
    return { at: this.clock.now(), pid: process.pid, alerts, channels, brokerages };
  }
}

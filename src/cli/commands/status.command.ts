import { Inject } from '@nestjs/common';
import { Command, CommandRunner, Option } from 'nest-commander';
import { isProcessAlive, readPidFile } from '../../app/daemon-pid.file';
import { DAEMON_SETTINGS } from '../../config/config.module';
import { formatProblem } from '../../config/config-error';
import { ConfigService } from '../../config/config.service';
import type { DaemonSettings } from '../../config/daemon-settings';
import {
  AlertRepository,
  InboxRepository,
  OutboxRepository,
  RecordErrorRepository,
  RunRepository,
} from '../../ledger';
import { brokeragePause, isPaused, JobPauseService } from '../../scheduler/job-pause.service';
import { JOB_NAMES } from '../../scheduler/job.types';
import { CliOutput } from '../output/cli-output';
import { checkKnownBrokerage } from './known-brokerage';
import { formatCounts, formatDate, formatDuration } from '../output/format';
import { renderTable } from '../output/table';
import type { CommonOptions } from './cli-options';
import { alertJson } from './alerts.command';
import { runJson, type RunJson } from './runs.command';

const OPEN_ERRORS_CAP = 100_000;

export interface BrokerageStatus {
  id: string;
  file: string | null;
  enabled: boolean;
  // Why its file failed to load (nothing of it is synced until it loads); empty when it loaded.
  loadProblems: string[];
  // Set while the whole brokerage is paused.
  paused: { reason: string; pausedAt: string } | null;
  jobs: { job: string; lastRun: RunJson | null; paused: { reason: string; pausedAt: string } | null }[];
  outbox: Record<string, number>;
  inbox: Record<string, number>;
  openErrors: number;
}

// Per brokerage: the last run of each job, outbox and inbox depth by state, open record errors.
@Command({
  name: 'status',
  description: 'last run of each job, outbox and inbox depth, open errors, per brokerage',
})
export class StatusCommand extends CommandRunner {
  constructor(
    private readonly config: ConfigService,
    private readonly runs: RunRepository,
    private readonly outbox: OutboxRepository,
    private readonly inbox: InboxRepository,
    private readonly recordErrors: RecordErrorRepository,
    private readonly pauses: JobPauseService,
    private readonly alerts: AlertRepository,
    private readonly output: CliOutput,
    @Inject(DAEMON_SETTINGS) private readonly settings: DaemonSettings,
  ) {
    super();
  }

  async run(_params: string[], options: CommonOptions = {}): Promise<void> {
    const statuses = await this.collect(options.brokerage);
    if (!checkKnownBrokerage(this.config, this.output, options.brokerage, statuses.length > 0)) return;
    // A brokerage nobody syncs is a problem for a person: status says so by its exit code too.
    if (statuses.some((s) => s.loadProblems.length > 0)) process.exitCode = 1;
    const daemon = this.daemonState();
    // Problems first: what needs a person, before the tables.
    const open = await this.alerts.list({ state: 'firing', brokerageId: options.brokerage, limit: 1000 });
    if (options.json) {
      this.output.json({ daemon, alerts: open.map(alertJson), brokerages: statuses });
      return;
    }
    this.output.print(daemon.running ? `Daemon: running (pid ${daemon.pid})\n` : 'Daemon: not running\n');
    if (open.length > 0)
      this.output.print(
        `NEEDS ATTENTION: ${open.length} open alert(s) (cli alerts lists them with what to do)\n` +
          open.map((a) => `  - since ${formatDate(a.openedAt)}: ${a.summary}`).join('\n') +
          '\n',
      );
    if (statuses.length === 0) {
      this.output.print(`no brokerages configured in ${this.config.configDir} and none in the ledger`);
      return;
    }
    this.output.print(statuses.map((s) => this.render(s)).join('\n\n'));
  }

  async collect(only?: string): Promise<BrokerageStatus[]> {
    const lastRuns = await this.runs.lastRuns(only);
    const pauses = await this.pauses.list(only);
    // Brokerages in the config, plus any the ledger still remembers (removed from the config since).
    const ids = new Set<string>(this.config.brokerages().map((b) => b.id));
    const unready = this.config.unreadyBrokerages();
    for (const id of unready.keys()) ids.add(id);
    for (const run of lastRuns) ids.add(run.brokerageId);
    // Problems first: brokerages that failed to load before the others.
    const selected = [...ids]
      .filter((id) => only === undefined || id === only)
      .sort((a, b) => Number(unready.has(b)) - Number(unready.has(a)) || a.localeCompare(b));
    const statuses: BrokerageStatus[] = [];
    for (const id of selected) {
      const brokerage = this.config.get(id);
      const byJob = new Map(lastRuns.filter((r) => r.brokerageId === id).map((r) => [r.job, r]));
      const jobs = [...new Set<string>([...JOB_NAMES, ...byJob.keys()])].map((job) => {
        const run = byJob.get(job);
        const pause = isPaused(pauses, id, job);
        return { job, lastRun: run ? runJson(run) : null, paused: pause ? pauseJson(pause) : null };
      });
      const wholePause = brokeragePause(pauses, id);
      statuses.push({
        id,
        file: brokerage?.file ?? null,
        enabled: brokerage ? brokerage.config.enabled !== false : false,
        loadProblems: (unready.get(id) ?? []).map(formatProblem),
        paused: wholePause ? pauseJson(wholePause) : null,
        jobs,
        outbox: await this.outbox.depth(id),
        inbox: await this.inbox.depth(id),
        openErrors: (await this.recordErrors.listOpen({ brokerageId: id, limit: OPEN_ERRORS_CAP })).length,
      });
    }
    return statuses;
  }

  // From the pid file the daemon writes beside the ledger.
  private daemonState(): { running: boolean; pid: number | null } {
    const pid = readPidFile(this.settings.ledgerPath);
    return pid !== undefined && isProcessAlive(pid) ? { running: true, pid } : { running: false, pid: null };
  }

  private render(status: BrokerageStatus): string {
    const state =
      status.loadProblems.length > 0
        ? `FAILED TO LOAD, not synced: ${status.loadProblems.join('; ')}`
        : status.file === null
          ? 'not in the config'
          : status.enabled
            ? status.file
            : `${status.file}, disabled`;
    const paused = status.paused
      ? `, PAUSED since ${formatDate(status.paused.pausedAt)}${status.paused.reason ? `: ${status.paused.reason}` : ''}`
      : '';
    const rows = status.jobs.map(({ job, lastRun: run, paused: jobPause }) => {
      return [
        job,
        run ? run.id : null,
        run ? run.status : 'never run',
        run ? formatDate(run.startedAt) : null,
        run ? formatDuration(run.durationMs) : null,
        run ? run.counts.read : null,
        run ? run.counts.created : null,
        run ? run.counts.updated : null,
        run ? run.counts.unchanged : null,
        run ? run.counts.failed : null,
        jobPause ? 'paused' : 'active',
        run?.error ?? null,
      ];
    });
    return [
      `Brokerage ${status.id} (${state}${paused})`,
      renderTable(
        [
          'JOB',
          'RUN',
          'STATUS',
          'STARTED',
          'TOOK',
          { header: 'READ', align: 'right' },
          { header: 'CREATED', align: 'right' },
          { header: 'UPDATED', align: 'right' },
          { header: 'UNCHANGED', align: 'right' },
          { header: 'FAILED', align: 'right' },
          'CRON',
          { header: 'ERROR', maxWidth: 60 },
        ],
        rows,
      ),
      `Outbox: ${formatCounts(status.outbox)}`,
      `Inbox: ${formatCounts(status.inbox)}`,
      `Open record errors: ${status.openErrors}${status.openErrors > 0 ? ` (see: cli errors --brokerage ${status.id})` : ''}`,
    ].join('\n');
  }

  @Option({ flags: '-b, --brokerage <id>', description: 'only this brokerage' })
  parseBrokerage(value: string): string {
    return value;
  }

  @Option({ flags: '--json', description: 'machine-readable output' })
  parseJson(): boolean {
    return true;
  }
}

function pauseJson(pause: { reason: string; pausedAt: Date }): { reason: string; pausedAt: string } {
  return { reason: pause.reason, pausedAt: pause.pausedAt.toISOString() };
}

import { Inject } from '@nestjs/common';
import { hostname } from 'node:os';
import { Command, CommandRunner, Option } from 'nest-commander';
import { isProcessAlive, readPidFile } from '../../app/daemon-pid.file';
import { DAEMON_SETTINGS } from '../../config/config.module';
import { ConfigService } from '../../config/config.service';
import type { DaemonSettings } from '../../config/daemon-settings';
import { WorkerHeartbeatRepository } from '../../ledger';
import { SystemRunOwners } from '../../ledger/run-owner';
import { deadAfterSeconds } from '../../ledger/worker-liveness';
import { ago, daemonLoadOf, type DaemonLoad } from '../../status/daemon-load';
import { StatusSnapshotService, type StatusSnapshot } from '../../status/status-snapshot.service';
import { CliOutput } from '../output/cli-output';
import { checkKnownBrokerage } from './known-brokerage';
import { formatCounts, formatDate } from '../output/format';
import {
  FIGURES_WINDOW_DAYS,
  formatOfferFigures,
  type OfferFigures,
} from '../../sync/offer-clocks/offer-figures';
import { RUN_COLUMNS, runCells } from '../output/run-columns';
import { renderTable } from '../output/table';
import type { CommonOptions } from './cli-options';
import { alertJson } from './alerts.command';
import { runJson, type RunJson } from './runs.command';

export interface BrokerageStatus {
  id: string;
  file: string | null;
  enabled: boolean;
  // Why its file failed to load (nothing of it is synced until it loads); empty when it loaded.
  loadProblems: string[];
  // Set when the file fails to load in this shell only for what this shell lacks (a secret's
  // variable or file): what the ledger shows of the daemon running it. Null otherwise.
  daemonLoad: DaemonLoad | null;
  // Set while the whole brokerage is paused.
  paused: { reason: string; pausedAt: string } | null;
  jobs: { job: string; lastRun: RunJson | null; paused: { reason: string; pausedAt: string } | null }[];
  outbox: Record<string, number>;
  inbox: Record<string, number>;
  openErrors: number;
  // The broker's numbers over the last 30 days (docs/operations.md, "Offer clocks and numbers").
  offers: OfferFigures;
}

// Per brokerage: the last run of each job, outbox and inbox depth by state, open record errors.
@Command({
  name: 'status',
  description: 'last run of each job, outbox and inbox depth, open errors, per brokerage',
})
export class StatusCommand extends CommandRunner {
  constructor(
    private readonly config: ConfigService,
    private readonly snapshots: StatusSnapshotService,
    private readonly output: CliOutput,
    @Inject(DAEMON_SETTINGS) private readonly settings: DaemonSettings,
    private readonly heartbeats: WorkerHeartbeatRepository,
  ) {
    super();
  }

  async run(_params: string[], options: CommonOptions = {}): Promise<void> {
    const snapshot = await this.snapshots.read(options.brokerage);
    // Problems first: a brokerage nobody syncs before the others (the daemon's own brokerages in order).
    const statuses = statusesOf(snapshot).sort(
      (a, b) => Number(unsynced(b)) - Number(unsynced(a)) || a.id.localeCompare(b.id),
    );
    if (!checkKnownBrokerage(this.config, this.output, options.brokerage, statuses.length > 0)) return;
    // A brokerage nobody syncs is a problem for a person: status says so by its exit code too. One
    // the daemon runs, whose file only this shell cannot load (its secrets are the daemon's), is not.
    if (statuses.some(unsynced)) process.exitCode = 1;
    const daemon = await this.daemonState();
    // Problems first: what needs a person, before the tables.
    const open = snapshot.alerts;
    if (options.json) {
      this.output.json({ daemon, alerts: open.map(alertJson), brokerages: statuses });
      return;
    }
    this.output.print(`${daemonLine(daemon)}\n`);
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
    this.output.print(statuses.map((s) => this.render(s, snapshot.at)).join('\n\n'));
  }

  // From the pid file the daemon writes beside a SQLite ledger; on PostgreSQL, from the workers'
  // heartbeats (there is no pid file: "not running" was said beside two live workers).
  private async daemonState(): Promise<DaemonState> {
    if (this.settings.ledgerUrl) {
      const deadAfter = deadAfterSeconds(this.settings.workerHeartbeatSeconds);
      const workers = (await this.heartbeats.silences())
        .filter((beat) => beat.seconds < deadAfter)
        .map((beat) => beat.owner);
      return { running: workers.length > 0, pid: null, workers, deadAfterSeconds: deadAfter };
    }
    const pid = readPidFile(this.settings.ledgerPath);
    return pid !== undefined && isProcessAlive(pid) ? { running: true, pid } : { running: false, pid: null };
  }

  private render(status: BrokerageStatus, now: Date): string {
    const here = status.daemonLoad;
    const missing = here?.missingHere.join('; ');
    const state =
      here?.daemonRunsIt && here.daemonLastRunAt
        ? `loads in the daemon (last run ${ago(here.daemonLastRunAt, now)}), not in this shell: ${missing}`
        : here
          ? `FAILED TO LOAD in this shell (${missing}) and ${here.reason}, so not synced: ${status.loadProblems.join('; ')}`
          : status.loadProblems.length > 0
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
        ...runCells(run),
        jobPause ? 'paused' : 'active',
        run?.error ?? null,
      ];
    });
    return [
      `Brokerage ${status.id} (${state}${paused})`,
      renderTable(['JOB', 'RUN', 'STATUS', ...RUN_COLUMNS, 'CRON', { header: 'ERROR', wrap: 60 }], rows),
      `Outbox: ${formatCounts(status.outbox)}`,
      `Inbox: ${formatCounts(status.inbox)}`,
      `Open record errors: ${status.openErrors}${status.openErrors > 0 ? ` (see: cli errors --brokerage ${status.id})` : ''}`,
      `Offers (${FIGURES_WINDOW_DAYS} days): ${formatOfferFigures(status.offers)}`,
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

function unsynced(status: BrokerageStatus): boolean {
  return status.loadProblems.length > 0 && status.daemonLoad?.daemonRunsIt !== true;
}

// A run's owner (`<host>/<pid>`) on this host whose process has ended. One on another host cannot
// be asked (PostgreSQL workers): its recent runs stand.
function stoppedHere(owner: string): boolean {
  return owner.startsWith(`${hostname()}/`) && !new SystemRunOwners().alive(owner);
}

interface DaemonState {
  running: boolean;
  pid: number | null;
  // On PostgreSQL: the workers (host/pid) whose heartbeat is fresher than `deadAfterSeconds`.
  workers?: string[];
  deadAfterSeconds?: number;
}

function daemonLine(daemon: DaemonState): string {
  if (daemon.workers === undefined)
    return daemon.running ? `Daemon: running (pid ${daemon.pid})` : 'Daemon: not running';
  return daemon.workers.length > 0
    ? `Workers: ${daemon.workers.length} alive on the PostgreSQL ledger (${daemon.workers.join(', ')})`
    : `Workers: none alive on the PostgreSQL ledger (no heartbeat in the last ${daemon.deadAfterSeconds} s)`;
}

// The snapshot as `cli status --json` has always shown it, plus `daemonLoad`.
function statusesOf(snapshot: StatusSnapshot): BrokerageStatus[] {
  return snapshot.brokerages.map((b) => ({
    id: b.id,
    file: b.file,
    enabled: b.enabled,
    loadProblems: b.loadProblems,
    daemonLoad: daemonLoadOf(b, snapshot.alerts, snapshot.at, stoppedHere),
    paused: b.paused ? pauseJson(b.paused) : null,
    jobs: b.jobs.map((j) => ({
      job: j.job,
      lastRun: j.lastRun ? runJson(j.lastRun) : null,
      paused: j.paused ? pauseJson(j.paused) : null,
    })),
    outbox: b.outbox,
    inbox: b.inbox,
    openErrors: b.totals.errors,
    offers: b.offers,
  }));
}

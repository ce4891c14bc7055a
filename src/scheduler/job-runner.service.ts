import { Inject, Injectable, Logger, Optional, type OnModuleDestroy } from '@nestjs/common';
import { Clock } from '../common/clock';
import { CredentialSuspicions } from '../common/credential-suspicions';
import { ConfigService } from '../config/config.service';
import { DAEMON_SETTINGS, type DaemonSettings } from '../config/daemon-settings';
import { credentialOfPause } from '../ledger/entities/pause.entity';
import { withLogContext } from '../ops/logging/log-context';
import { MetricsService } from '../ops/metrics/metrics.service';
import { jobKey } from './job-backoff';
import { JobRegistry } from './job.registry';
import { emptyCounts, type JobCounts, type JobName } from './job.types';
import { PAUSE_STORE, type PauseStore } from './pause-store.port';
import { RUN_STORE, type FinishedRunStatus, type RunStore } from './run-store.port';

export type RunOutcomeStatus = FinishedRunStatus | 'skipped';

export interface RunOutcome {
  brokerageId: string;
  job: JobName;
  status: RunOutcomeStatus;
  runId: number | null;
  counts: JobCounts;
  error?: string;
  // Why a run was skipped, in words for the operator.
  reason?: string;
  // Skipped because the operator paused the job or its brokerage (ignorePause runs it anyway).
  paused?: boolean;
}

export interface RunOptions {
  dryRun?: boolean;
  // Aborts the run like a shutdown would (it stops at its next checkpoint), e.g. when its pg-boss
  // lease is about to run out.
  signal?: AbortSignal;
  onProgress?: (done: number, total?: number) => void;
  // Run even though the operator paused this job or its brokerage (`sync --once --force`).
  ignorePause?: boolean;
}

// A run in progress, with the progress its handler last reported (for the status page).
export interface RunningJob {
  brokerageId: string;
  job: JobName;
  runId: number | null;
  startedAt: Date;
  done: number;
  total?: number;
}

interface InFlight {
  controller: AbortController;
  runId: number | null;
  done: Promise<RunOutcome>;
  startedAt: Date;
  progress: { done: number; total?: number };
}

// Runs one (brokerage, job), for cron and the CLI alike: never two at once, each recorded in the
// ledger, aborted on shutdown so the handler can stop at a page boundary.
@Injectable()
export class JobRunner implements OnModuleDestroy {
  private readonly logger = new Logger(JobRunner.name);
  private readonly inFlight = new Map<string, InFlight>();
  private closing = false;

  constructor(
    private readonly registry: JobRegistry,
    private readonly config: ConfigService,
    @Inject(RUN_STORE) private readonly runs: RunStore,
    @Inject(PAUSE_STORE) private readonly pauses: PauseStore,
    private readonly metrics: MetricsService,
    private readonly clock: Clock,
    @Inject(DAEMON_SETTINGS) private readonly settings: Pick<DaemonSettings, 'shutdownTimeoutMs'>,
    // A failed run may be a refused credential: the credential watch (src/alerts) checks.
    @Optional() private readonly suspicions?: CredentialSuspicions,
  ) {}

  // The daemon's CronScheduler already drains on destroy; this covers the CLI (sync --once + Ctrl-C).
  async onModuleDestroy(): Promise<void> {
    await this.shutdown(this.settings.shutdownTimeoutMs);
  }

  isRunning(brokerageId: string, job: JobName): boolean {
    return this.inFlight.has(jobKey(brokerageId, job));
  }

  // Resolves once no run of this (brokerage, job) is in progress.
  async whenIdle(brokerageId: string, job: JobName): Promise<void> {
    for (;;) {
      const entry = this.inFlight.get(jobKey(brokerageId, job));
      if (!entry) return;
      await entry.done.catch(() => undefined);
    }
  }

  runningCount(): number {
    return this.inFlight.size;
  }

  running(): RunningJob[] {
    return [...this.inFlight.entries()].map(([key, entry]) => {
      const separator = key.indexOf(':');
      return {
        brokerageId: key.slice(0, separator),
        job: key.slice(separator + 1) as JobName,
        runId: entry.runId,
        startedAt: entry.startedAt,
        ...entry.progress,
      };
    });
  }

  async run(brokerageId: string, job: JobName, options: RunOptions = {}): Promise<RunOutcome> {
    const key = jobKey(brokerageId, job);
    const skipped = (reason: string, quiet = false): RunOutcome => {
      // A paused job is skipped every tick by design; saying so each minute would bury the log.
      const line = `skipped ${job} for ${brokerageId}: ${reason}`;
      if (quiet) this.logger.debug(line);
      else this.logger.log(line);
      return { brokerageId, job, status: 'skipped', runId: null, counts: emptyCounts(), reason };
    };
    if (this.closing) return skipped('the daemon is shutting down');
    const brokerage = this.config.get(brokerageId);
    if (!brokerage) throw new Error(`unknown brokerage "${brokerageId}" (not in ${this.config.configDir})`);
    const handler = this.registry.get(job);
    if (!handler) return skipped(`no handler is registered for job ${job}`);
    if (this.inFlight.has(key)) return skipped('a run of the same brokerage and job is still in progress');

    const controller = new AbortController();
    options.signal?.addEventListener('abort', () => controller.abort(options.signal?.reason), { once: true });
    const entry: InFlight = {
      controller,
      runId: null,
      done: Promise.resolve(undefined as never),
      startedAt: this.clock.now(),
      progress: { done: 0 },
    };
    // Claim the slot before the first await so a concurrent call sees it.
    this.inFlight.set(key, entry);
    const dryRun = options.dryRun ?? false;
    entry.done = (async (): Promise<RunOutcome> => {
      const started = this.clock.nowMs();
      try {
        const pause = options.ignorePause ? null : await this.pauses.pauseOf(brokerageId, job);
        if (pause) return { ...skipped(pausedReason(pause), true), paused: true };
        const claim = dryRun ? null : await this.runs.claim(brokerageId, job);
        if (claim && 'heldBy' in claim) {
          const { owner, runId, startedAt } = claim.heldBy;
          return skipped(
            `a run of the same brokerage and job is in progress in another process (${owner}, run ${runId}, since ${startedAt.toISOString()})`,
          );
        }
        if (claim && claim.recovered.runs + claim.recovered.outbox + claim.recovered.inbox > 0)
          this.logger.warn(
            `took over ${job} for ${brokerageId} from a process that stopped: ${claim.recovered.runs} run(s) marked interrupted, ` +
              `${claim.recovered.outbox} outbox command(s) to reconcile, ${claim.recovered.inbox} inbox event(s) made pending again`,
          );
        const runId = claim ? claim.run.id : null;
        entry.runId = runId;
        return await withLogContext({ brokerageId, job, runId: runId ?? 'dry-run' }, async () => {
          // Most runs find nothing to do; their start and end are for debugging, not for reading.
          this.logger.debug(`${dryRun ? 'dry run' : 'run'} started`);
          let status: FinishedRunStatus;
          let counts = emptyCounts();
          let error: string | undefined;
          try {
            const result = await handler({
              brokerage,
              runId,
              signal: controller.signal,
              dryRun,
              progress: (done, total) => {
                entry.progress = { done, total };
                options.onProgress?.(done, total);
              },
            });
            counts = { ...emptyCounts(), ...result.counts };
            // A handler that returns early because it was aborted checkpointed; its work is not finished.
            status = controller.signal.aborted ? 'interrupted' : 'succeeded';
          } catch (caught) {
            status = controller.signal.aborted ? 'interrupted' : 'failed';
            error = caught instanceof Error ? caught.message : String(caught);
          }
          if (runId !== null) await this.runs.finish(runId, { counts, status, error });
          const seconds = (this.clock.nowMs() - started) / 1000;
          if (!dryRun) this.metrics.runFinished(brokerageId, job, status, seconds);
          const summary = `read ${counts.read}, created ${counts.created}, updated ${counts.updated}, unchanged ${counts.unchanged}, failed ${counts.failed}`;
          if (status === 'failed' && !dryRun) this.suspicions?.report(brokerageId);
          if (status === 'failed')
            this.logger.error(`run failed after ${seconds.toFixed(1)}s: ${error} (${summary})`);
          else if (status === 'interrupted' || changedAnything(counts))
            this.logger.log(`run ${status} in ${seconds.toFixed(1)}s (${summary})`);
          else this.logger.debug(`run ${status} in ${seconds.toFixed(1)}s (${summary})`);
          return { brokerageId, job, status, runId, counts, error };
        });
      } catch (caught) {
        // The ledger itself failed (start or finish): report it as a failed run without an id.
        const error = caught instanceof Error ? caught.message : String(caught);
        this.logger.error(`run of ${job} for ${brokerageId} could not be recorded: ${error}`);
        return { brokerageId, job, status: 'failed', runId: entry.runId, counts: emptyCounts(), error };
      } finally {
        this.inFlight.delete(key);
      }
    })();
    return entry.done;
  }

  // Abort the runs of one brokerage (it was removed from the config).
  abortBrokerage(brokerageId: string): void {
    for (const [key, entry] of this.inFlight) {
      if (key.startsWith(`${brokerageId}:`))
        entry.controller.abort(new Error('brokerage removed from config'));
    }
  }

  // Refuse new runs, abort the running ones, wait up to `timeoutMs` for them to checkpoint, and mark
  // whatever is still running as interrupted so a restart sees an honest ledger.
  async shutdown(timeoutMs: number): Promise<void> {
    this.closing = true;
    const entries = [...this.inFlight.values()];
    if (entries.length === 0) return;
    this.logger.log(
      `shutting down: aborting ${entries.length} running job(s), waiting up to ${timeoutMs} ms`,
    );
    for (const entry of entries) entry.controller.abort(new Error('daemon shutting down'));
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    const settled = await Promise.race([Promise.allSettled(entries.map((e) => e.done)), timedOut]);
    clearTimeout(timer);
    if (settled !== 'timeout') return;
    for (const entry of [...this.inFlight.values()]) {
      if (entry.runId === null) continue;
      this.logger.warn(`run ${entry.runId} did not stop within ${timeoutMs} ms; marking it interrupted`);
      await this.runs
        .finish(entry.runId, {
          counts: emptyCounts(),
          status: 'interrupted',
          error: 'did not stop before shutdown',
        })
        .catch(() => undefined);
    }
  }
}

function pausedReason(pause: { job: string; reason: string; pausedAt: Date }): string {
  if (credentialOfPause(pause.job))
    return `the brokerage is paused by the daemon since ${pause.pausedAt.toISOString()}: ${pause.reason}`;
  const what = pause.job === '*' ? 'the brokerage is paused' : 'this job is paused';
  return `${what} since ${pause.pausedAt.toISOString()}${pause.reason ? ` (${pause.reason})` : ''}; resume it to run`;
}

// Records that failed are not counted: they fail again every run until someone fixes them, and each
// is already in `errors`, on the status page and on its CRM record.
function changedAnything(counts: JobCounts): boolean {
  return counts.created + counts.updated > 0;
}

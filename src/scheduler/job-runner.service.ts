import { Inject, Injectable, Logger, Optional, type OnModuleDestroy } from '@nestjs/common';
import { withCallPriority } from '../common/call-priority';
import { Clock } from '../common/clock';
import { CredentialSuspicions } from '../common/credential-suspicions';
import { ConfigService } from '../config/config.service';
import { DAEMON_SETTINGS, type DaemonSettings } from '../config/daemon-settings';
import { credentialOfPause } from '../ledger/entities/pause.entity';
import { LedgerStateError } from '../ledger/repositories/ledger-state.error';
import { withLogContext } from '../observability/logging/log-context';
import { MetricsService } from '../observability/metrics/metrics.service';
import { isJobKeyOf, jobKey, type JobPair } from './job-key';
import { JobRegistry } from './job.registry';
import type { LoadedBrokerage } from '../config/config.loader';
import { CALL_PRIORITY, emptyCounts, type JobCounts, type JobHandler, type JobName } from './job.types';
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
  // What the run left for the next one (JobResult.left).
  left?: string;
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
  // The caller holds the pair's pg-boss singleton (SingletonRun): what is still marked running for
  // the pair was left by an earlier holder that stopped, and is taken over (RunRepository.claim).
  singletonHeld?: boolean;
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

// The slot of a run in progress: claimed before the run's first await, so a concurrent call sees it.
class RunSlot {
  readonly controller = new AbortController();
  runId: number | null = null;
  progress: { done: number; total?: number } = { done: 0 };
  // Another worker took the run over (abortTakenOver): it stops at its next checkpoint.
  takenOver = false;
  // Its handler returned and its end is being recorded: nothing left to stop.
  ending = false;
  // Set right after the slot is made, in the same synchronous step (run()).
  done!: Promise<RunOutcome>;

  constructor(
    readonly pair: JobPair,
    readonly startedAt: Date,
  ) {}
}

// What the handler's run came to, before it is recorded.
interface HandlerResult {
  status: FinishedRunStatus;
  counts: JobCounts;
  error?: string;
  left?: string;
}

// Runs one (brokerage, job), for cron and the CLI alike: never two at once, each recorded in the
// ledger, aborted on shutdown so the handler can stop at a page boundary.
@Injectable()
export class JobRunner implements OnModuleDestroy {
  private readonly logger = new Logger(JobRunner.name);
  private readonly inFlight = new Map<string, RunSlot>();
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
    return [...this.inFlight.values()].map((entry) => ({
      ...entry.pair,
      runId: entry.runId,
      startedAt: entry.startedAt,
      ...entry.progress,
    }));
  }

  // Everything up to the slot's claim happens before the first await, so a concurrent call sees it.
  async run(brokerageId: string, job: JobName, options: RunOptions = {}): Promise<RunOutcome> {
    const key = jobKey(brokerageId, job);
    if (this.closing) return this.skipped(brokerageId, job, 'the daemon is shutting down');
    const brokerage = this.config.get(brokerageId);
    if (!brokerage) throw new Error(this.config.whyNotLoaded(brokerageId));
    const handler = this.registry.get(job);
    if (!handler) return this.skipped(brokerageId, job, `no handler is registered for job ${job}`);
    if (this.inFlight.has(key))
      return this.skipped(brokerageId, job, 'a run of the same brokerage and job is still in progress');
    const slot = new RunSlot({ brokerageId, job }, this.clock.now());
    const { signal } = options;
    signal?.addEventListener('abort', () => slot.controller.abort(signal.reason), { once: true });
    this.inFlight.set(key, slot);
    slot.done = this.runInSlot(slot, brokerage, job, handler, options).finally(() =>
      this.inFlight.delete(key),
    );
    return slot.done;
  }

  private async runInSlot(
    slot: RunSlot,
    brokerage: LoadedBrokerage,
    job: JobName,
    handler: JobHandler,
    options: RunOptions,
  ): Promise<RunOutcome> {
    const brokerageId = brokerage.id;
    try {
      const admitted = await this.admit(brokerageId, job, options);
      if ('status' in admitted) return admitted;
      slot.runId = admitted.runId;
      return await withLogContext({ brokerageId, job, runId: slot.runId ?? 'dry-run' }, () =>
        withCallPriority(CALL_PRIORITY[job], () => this.execute(slot, brokerage, job, handler, options)),
      );
    } catch (caught) {
      // The ledger itself failed (start or finish): report it as a failed run without an id.
      const error = caught instanceof Error ? caught.message : String(caught);
      this.logger.error(`run of ${job} for ${brokerageId} could not be recorded: ${error}`);
      return { brokerageId, job, status: 'failed', runId: slot.runId, counts: emptyCounts(), error };
    }
  }

  // The pause check and the run's claim in the ledger: a skipped outcome, or the run's id (null for a
  // dry run, which is not recorded).
  private async admit(
    brokerageId: string,
    job: JobName,
    options: RunOptions,
  ): Promise<RunOutcome | { runId: number | null }> {
    const pause = options.ignorePause ? null : await this.pauses.pauseOf(brokerageId, job);
    if (pause) return { ...this.skipped(brokerageId, job, pausedReason(pause), true), paused: true };
    if (options.dryRun) return { runId: null };
    const claim = await this.runs.claim(brokerageId, job, { singletonHeld: options.singletonHeld });
    if ('heldBy' in claim) {
      const { owner, runId, startedAt } = claim.heldBy;
      return this.skipped(
        brokerageId,
        job,
        `a run of the same brokerage and job is in progress in another process (${owner}, run ${runId}, since ${startedAt.toISOString()})`,
      );
    }
    const { runs, outbox, inbox } = claim.recovered;
    if (runs + outbox + inbox > 0)
      this.logger.warn(
        `took over ${job} for ${brokerageId} from a process that stopped: ${runs} run(s) marked interrupted, ` +
          `${outbox} outbox command(s) to reconcile, ${inbox} inbox event(s) made pending again`,
      );
    return { runId: claim.run.id };
  }

  private async execute(
    slot: RunSlot,
    brokerage: LoadedBrokerage,
    job: JobName,
    handler: JobHandler,
    options: RunOptions,
  ): Promise<RunOutcome> {
    const dryRun = options.dryRun ?? false;
    const { runId } = slot;
    const started = this.clock.nowMs();
    // Most runs find nothing to do; their start and end are for debugging, not for reading.
    this.logger.debug(`${dryRun ? 'dry run' : 'run'} started`);
    const result = await this.callHandler(slot, brokerage, handler, options);
    if (runId !== null) await this.recordFinish(slot, runId, result);
    this.report(brokerage.id, job, result, (this.clock.nowMs() - started) / 1000, dryRun);
    return { brokerageId: brokerage.id, job, runId, ...result };
  }

  // A run another worker took over is already `interrupted` in the ledger, and that stands: said
  // once as a warning, not as a run that could not be recorded.
  private async recordFinish(slot: RunSlot, runId: number, result: HandlerResult): Promise<void> {
    slot.ending = true;
    try {
      await this.runs.finish(runId, result);
    } catch (error) {
      if (!(error instanceof LedgerStateError && error.currentState === 'interrupted')) throw error;
      const by = slot.takenOver ? 'taken over by another worker' : 'by another worker, or at shutdown';
      this.logger.warn(`run ${runId} was marked interrupted meanwhile (${by}); its own end is not recorded`);
      result.status = 'interrupted';
    }
  }

  private async callHandler(
    slot: RunSlot,
    brokerage: LoadedBrokerage,
    handler: JobHandler,
    options: RunOptions,
  ): Promise<HandlerResult> {
    const { signal } = slot.controller;
    try {
      const result = await handler({
        brokerage,
        runId: slot.runId,
        signal,
        dryRun: options.dryRun ?? false,
        progress: (done, total) => {
          slot.progress = { done, total };
          options.onProgress?.(done, total);
        },
      });
      // A handler that returns early because it was aborted checkpointed; its work is not finished.
      return {
        status: signal.aborted ? 'interrupted' : 'succeeded',
        counts: { ...emptyCounts(), ...result.counts },
        ...(result.left ? { left: result.left } : {}),
      };
    } catch (caught) {
      return {
        status: signal.aborted ? 'interrupted' : 'failed',
        counts: emptyCounts(),
        error: caught instanceof Error ? caught.message : String(caught),
      };
    }
  }

  // Metrics, the credential watch's hint and the run's log line.
  private report(
    brokerageId: string,
    job: JobName,
    result: HandlerResult,
    seconds: number,
    dryRun: boolean,
  ): void {
    const { status, counts, error } = result;
    if (!dryRun) this.metrics.runFinished(brokerageId, job, status, seconds);
    if (status === 'failed' && !dryRun) this.suspicions?.report(brokerageId);
    const summary = `read ${counts.read}, created ${counts.created}, updated ${counts.updated}, unchanged ${counts.unchanged}, failed ${counts.failed}`;
    if (status === 'failed')
      this.logger.error(`run failed after ${seconds.toFixed(1)}s: ${error} (${summary})`);
    else if (status === 'interrupted' || changedAnything(counts))
      this.logger.log(`run ${status} in ${seconds.toFixed(1)}s (${summary})`);
    else this.logger.debug(`run ${status} in ${seconds.toFixed(1)}s (${summary})`);
  }

  private skipped(brokerageId: string, job: JobName, reason: string, quiet = false): RunOutcome {
    // A paused job is skipped every tick by design; saying so each minute would bury the log.
    const line = `skipped ${job} for ${brokerageId}: ${reason}`;
    if (quiet) this.logger.debug(line);
    else this.logger.log(line);
    return { brokerageId, job, status: 'skipped', runId: null, counts: emptyCounts(), reason };
  }

  // Abort the runs of one brokerage (it was removed from the config).
  abortBrokerage(brokerageId: string): void {
    for (const [key, entry] of this.inFlight) {
      if (isJobKeyOf(key, brokerageId)) entry.controller.abort(new Error('brokerage removed from config'));
    }
  }

  // Stop runs of this process that another worker has taken over (on a shared ledger, after this
  // worker looked dead to it: its event loop or its database stalled past the heartbeat's limit).
  // Each stops at its next checkpoint; the outbox's compare-and-set and the links' read times keep
  // what it writes before then from undoing its successor's work.
  abortTakenOver(runIds: readonly number[]): void {
    for (const slot of this.inFlight.values()) {
      if (slot.runId === null || !runIds.includes(slot.runId) || slot.takenOver || slot.ending) continue;
      slot.takenOver = true;
      this.logger.warn(
        `run ${slot.runId} of ${slot.pair.job} for ${slot.pair.brokerageId} was taken over by another worker; stopping it`,
      );
      slot.controller.abort(new Error('taken over by another worker'));
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

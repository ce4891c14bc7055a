import { Logger } from '@nestjs/common';
import type PgBoss from 'pg-boss';
import type { SyncJobData } from './pg-boss.queues';
import { PgBossTables, type ReadyQueue } from './pg-boss.tables';

// How long an idle worker waits before asking again whether any queue has work. A run finishing
// here or a local tick wakes it at once; work queued by another worker waits at most this long.
const POLLING_INTERVAL_MS = 1000;

// The priority of a job sent because there is known work for it; routine ticks send 0. Known work
// is fetched first (PgBossTables.readyQueues ranks the candidates).
export const KNOWN_WORK_PRIORITY = 1;

export type SyncJobHandler = (data: SyncJobData) => Promise<void>;

// One fetch loop per worker over all the (brokerage, job) queues it works, in place of one pg-boss
// `work()` loop per queue: it fetches only while the worker has a free slot (WORKER_CONCURRENCY), so
// a job is never taken by a full worker while another one is free, and a slot freed by a finished
// run is filled at once instead of at the next poll of some queue.
export class PgBossDispatcher {
  private readonly logger = new Logger(PgBossDispatcher.name);
  private readonly queues = new Set<string>();
  private readonly inFlight = new Set<Promise<void>>();
  // When this worker last finished a job of each queue (epoch ms).
  private readonly ended = new Map<string, number>();
  private stopping = false;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private nudged = false;
  private readonly tables: PgBossTables;

  constructor(
    private readonly boss: PgBoss,
    private readonly capacity: number,
    private readonly handle: SyncJobHandler,
  ) {
    this.tables = new PgBossTables(boss.getDb());
  }

  add(queue: string): void {
    this.queues.add(queue);
    this.nudge();
  }

  remove(queue: string): boolean {
    return this.queues.delete(queue);
  }

  works(queue: string): boolean {
    return this.queues.has(queue);
  }

  worked(): string[] {
    return [...this.queues].sort();
  }

  start(): void {
    this.loop ??= this.run();
  }

  // Queues a job with known work on `queue` (or marks the one already waiting so) and looks for
  // work now. Answers whether a new job was queued.
  async sendKnownWork(queue: string, data: SyncJobData): Promise<boolean> {
    const id = await this.boss.send(queue, data, { priority: KNOWN_WORK_PRIORITY });
    if (!id) await this.tables.promoteQueued(queue, KNOWN_WORK_PRIORITY);
    this.nudge();
    return id !== null;
  }

  // Look for work now (a slot was freed, or a job was just queued).
  nudge(): void {
    this.nudged = true;
    this.wake?.();
  }

  // Stop fetching; the jobs already started finish (their runs are aborted by the JobRunner's
  // shutdown) and are completed in pg-boss before this resolves.
  async stop(): Promise<void> {
    this.stopping = true;
    this.nudge();
    await this.loop;
    await Promise.all([...this.inFlight]);
  }

  private async run(): Promise<void> {
    while (!this.stopping) {
      this.nudged = false;
      let started = 0;
      if (this.inFlight.size < this.capacity) {
        try {
          started = await this.fill();
        } catch (error) {
          this.logger.error(`could not fetch jobs from pg-boss: ${String(error)}`);
        }
      }
      // Fetched something and still has room: there may be more ready right away.
      if (started > 0 && this.inFlight.size < this.capacity) continue;
      await this.idle();
    }
  }

  private async fill(): Promise<number> {
    if (this.queues.size === 0) return 0;
    const free = this.capacity - this.inFlight.size;
    // A few more candidates than free slots: another worker may take some of them first.
    const candidates = await this.tables.readyQueues([...this.queues], this.ended, free * 2 + 2);
    // Several slots free: one job per brokerage first, as across workers; a brokerage's second job
    // only if nothing else is ready.
    const first = (c: ReadyQueue, i: number) =>
      candidates.findIndex((o) => o.brokerageId === c.brokerageId) === i;
    const ordered = [...candidates.filter(first), ...candidates.filter((c, i) => !first(c, i))];
    // At most as many as were free when the candidates were ranked: a slot freed meanwhile (a run
    // just ended) is filled by asking again, since that run's brokerage now ranks differently (its
    // next job, e.g. the outbox-drain its crm-changes queued, comes before a brokerage not started).
    let started = 0;
    for (const { name } of ordered) {
      if (this.stopping || started >= free || this.inFlight.size >= this.capacity) break;
      const [job] = await this.boss.fetch<SyncJobData>(name, { batchSize: 1 });
      if (!job) continue;
      this.startJob(name, job);
      started += 1;
    }
    return started;
  }

  private startJob(queue: string, job: PgBoss.Job<SyncJobData>): void {
    const done = this.handle(job.data)
      .then(
        () => this.boss.complete(queue, job.id),
        // The run could not even start (e.g. the takeover's recovery failed): pg-boss retries it.
        (error: unknown) => {
          this.logger.error(`${queue}: ${String(error)}`);
          return this.boss.fail(queue, job.id, { message: String(error) });
        },
      )
      .then(
        () => undefined,
        (error: unknown) =>
          this.logger.error(`could not record the end of ${queue} in pg-boss: ${String(error)}`),
      )
      .finally(() => {
        this.ended.set(queue, Date.now());
        this.inFlight.delete(done);
        this.nudge();
      });
    this.inFlight.add(done);
  }

  private async idle(): Promise<void> {
    if (this.nudged || this.stopping) return;
    // Until a run here finishes or a local tick queues a job (both nudge), or the next poll.
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, POLLING_INTERVAL_MS);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.wake = undefined;
  }
}

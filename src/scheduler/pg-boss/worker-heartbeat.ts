import { Logger } from '@nestjs/common';
import type { WorkerHeartbeatRepository } from '../../ledger';

// A process holding pg-boss jobs on a shared ledger says it is alive every `seconds` (a row of
// worker_heartbeats on the database's clock), then does `afterBeat` (a worker looks for dead
// workers' jobs and for its own runs taken over). Beats go on until stop(), which removes the row:
// a worker stopping cleanly is gone at once. A beat that fails is logged and tried again next time,
// and its after-beat work skipped. `onTime` tells the after-beat work whether this beat came within
// two intervals of the last one: a worker whose own beats were late (its event loop or its database
// starved, as happens to every worker of a saturated host at once) cannot tell a dead worker from
// one starved like itself, and must not take others' jobs that round.
export class WorkerHeartbeat {
  private readonly logger = new Logger(WorkerHeartbeat.name);
  private timer: NodeJS.Timeout | undefined;
  // performance.now() of the last beat written (monotonic: a clock set back changes nothing).
  private lastBeatAt: number | undefined;
  private current: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly heartbeats: WorkerHeartbeatRepository,
    readonly owner: string,
    private readonly seconds: number,
    private readonly afterBeat: (beat: { onTime: boolean }) => Promise<void> = () => Promise.resolve(),
  ) {}

  // The first beat is written before this resolves.
  async start(): Promise<void> {
    this.current = this.beat();
    await this.current;
    this.next();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.current;
    await this.heartbeats
      .end(this.owner)
      .catch((error: unknown) =>
        this.logger.warn(`could not remove the heartbeat of ${this.owner}: ${String(error)}`),
      );
  }

  private next(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.current = this.beat().finally(() => this.next());
    }, this.seconds * 1000);
  }

  private async beat(): Promise<void> {
    try {
      await this.heartbeats.beat(this.owner);
    } catch (error) {
      // Nothing else this time: judged by its last beat, this worker could take its own jobs for
      // a dead worker's.
      this.logger.warn(`could not write the heartbeat of ${this.owner}: ${String(error)}`);
      return;
    }
    const now = performance.now();
    const onTime = this.lastBeatAt !== undefined && now - this.lastBeatAt <= 2 * this.seconds * 1000;
    this.lastBeatAt = now;
    if (this.stopped) return;
    try {
      await this.afterBeat({ onTime });
    } catch (error) {
      this.logger.error(`after the heartbeat of ${this.owner}: ${String(error)}`);
    }
  }
}

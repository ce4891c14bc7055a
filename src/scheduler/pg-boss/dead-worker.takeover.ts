import { Logger } from '@nestjs/common';
import type { WorkerDeath } from '../../ledger';
import type { MetricsService } from '../../observability/metrics/metrics.service';
import type { PgBossDispatcher } from './pg-boss.dispatcher';
import type { AbandonedJob, PgBossTables } from './pg-boss.tables';

// Takes the jobs of dead workers over without waiting for their pg-boss lease (which stays the
// backstop): a job of a queue this worker works, held by a dead worker (its database session gone
// and a beat or two missed, or silent for longer; PgBossTables.abandonedJobs), is cancelled and a
// fresh job queued as known work, so the next free worker takes it and, through RunRepository.claim
// with the singleton held, marks the dead holder's run interrupted and recovers its claims. Several
// workers may find one job; the one whose cancel took it queues the successor.
export class DeadWorkerTakeover {
  private readonly logger = new Logger(DeadWorkerTakeover.name);

  constructor(
    private readonly tables: PgBossTables,
    private readonly dispatcher: PgBossDispatcher,
    private readonly metrics: MetricsService,
    private readonly death: WorkerDeath,
  ) {}

  // Answers how many jobs this worker took over.
  async reap(): Promise<number> {
    const abandoned = await this.tables.abandonedJobs(this.dispatcher.worked(), this.death);
    let taken = 0;
    for (const held of abandoned) {
      if (!(await this.tables.cancelActive(held.queue, held.id))) continue;
      taken += 1;
      const holder = held.owner ?? 'a worker that had not recorded its run';
      this.logger.warn(
        `taking over ${held.job} for ${held.brokerageId} from ${holder}: ${this.why(held)}; ` +
          'its job is cancelled and the pair queued again',
      );
      this.metrics.workerTakeover(held.brokerageId, held.job);
      await this.dispatcher.sendKnownWork(held.queue, { brokerageId: held.brokerageId, job: held.job });
    }
    return taken;
  }

  private why(held: AbandonedJob): string {
    return held.sessionGone
      ? `its database session is gone and no heartbeat for ${this.death.sessionGoneSeconds}s`
      : `no heartbeat for ${this.death.silentSeconds}s`;
  }
}

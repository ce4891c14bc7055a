import { Logger } from '@nestjs/common';
import { Ledger } from '../../ledger';
import type { JobName } from '../job.types';

// On a shared (PostgreSQL) ledger no worker may recover everything at start: the rows another live
// worker is working on would be taken from under it. Instead, whoever starts a (brokerage, job)
// singleton recovers what an earlier holder of the same singleton left half-done. pg-boss runs one
// job per singleton at a time, so anything still marked in progress for it belongs to a dead worker
// (or one whose lease ran out, and which therefore aborted its run: see PgBossScheduler).
export class SingletonTakeover {
  private readonly logger = new Logger(SingletonTakeover.name);

  constructor(private readonly ledger: Ledger) {}

  async recover(brokerageId: string, job: JobName): Promise<void> {
    const runs = await this.ledger.runs.recoverInterrupted({ brokerageId, job });
    // Only the outbox drain marks commands sending, only the inbox drain marks events processing.
    const outbox = job === 'outbox-drain' ? await this.ledger.outbox.recoverInterrupted(brokerageId) : 0;
    const inbox = job === 'inbox-drain' ? await this.ledger.inbox.recoverInterrupted(brokerageId) : 0;
    if (runs + outbox + inbox === 0) return;
    this.logger.warn(
      `took over ${job} for ${brokerageId} from a worker that stopped: ${runs} run(s) marked interrupted, ` +
        `${outbox} outbox command(s) to reconcile, ${inbox} inbox event(s) made pending again`,
    );
  }
}

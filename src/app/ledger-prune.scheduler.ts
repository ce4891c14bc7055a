import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
} from '@nestjs/common';
import { Clock } from '../common/clock';
import { DAEMON_SETTINGS, type DaemonSettings } from '../config/daemon-settings';
import { LedgerRetention, type PruneCounts } from '../ledger/ledger.retention';
import { retentionCutoffs } from '../ledger/retention-policy';

// Keeps the ledger bounded: about 26,000 run rows a day per brokerage on default schedules, and every
// webhook body, would otherwise grow it forever. Prunes once at start, then every hour.
export const PRUNE_INTERVAL_MS = 60 * 60 * 1000;

@Injectable()
export class LedgerPruneScheduler implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(LedgerPruneScheduler.name);
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly retention: LedgerRetention,
    private readonly clock: Clock,
    @Inject(DAEMON_SETTINGS) private readonly settings: DaemonSettings,
  ) {}

  onApplicationBootstrap(): void {
    this.tick();
    this.timer = setInterval(() => this.tick(), PRUNE_INTERVAL_MS);
    this.timer.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  private tick(): void {
    if (this.running) return; // the previous prune is still going
    this.running = this.prune().finally(() => (this.running = undefined));
  }

  private async prune(): Promise<void> {
    try {
      const counts: PruneCounts = await this.retention.prune(retentionCutoffs(this.settings, this.clock));
      const total =
        counts.runs + counts.outbox + counts.inbox + counts.deadInbox + counts.recordErrors + counts.history;
      if (total > 0)
        this.logger.log(
          `pruned the ledger: ${counts.runs} run(s), ${counts.outbox} done command(s), ${counts.inbox} processed event(s), ${counts.deadInbox} dead or flagged body(ies), ${counts.recordErrors} resolved error(s), ${counts.history} decision-history entry(ies)`,
        );
    } catch (error) {
      // Retention is housekeeping: a failed prune is retried at the next tick, never fatal.
      this.logger.warn(
        `could not prune the ledger: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
}

import { Injectable, type OnModuleInit } from '@nestjs/common';
import { ConfigService } from '../../config/config.service';
import { InboxRepository, OutboxRepository } from '../../ledger';
import { MetricsService, type DepthRow } from '../../observability/metrics/metrics.service';

// Feeds outbox_depth and inbox_depth from the ledger at scrape time, per configured brokerage, and
// cash_offer_sync_brokerage_ready from the config (a brokerage whose file failed to load is 0).
@Injectable()
export class LedgerDepthCollector implements OnModuleInit {
  constructor(
    private readonly metrics: MetricsService,
    private readonly config: ConfigService,
    private readonly outbox: OutboxRepository,
    private readonly inbox: InboxRepository,
  ) {}

  onModuleInit(): void {
    this.metrics.setDepthReader(() => this.read());
    this.metrics.setReadinessReader(() => [
      ...this.config.brokerages().map(({ id }): [string, boolean] => [id, true]),
      ...[...this.config.unreadyBrokerages().keys()].map((id): [string, boolean] => [id, false]),
    ]);
  }

  async read(): Promise<{ outbox: DepthRow[]; inbox: DepthRow[] }> {
    const outbox: DepthRow[] = [];
    const inbox: DepthRow[] = [];
    for (const { id } of this.config.brokerages()) {
      for (const [state, count] of Object.entries(await this.outbox.depth(id)))
        outbox.push({ brokerageId: id, state, count });
      for (const [state, count] of Object.entries(await this.inbox.depth(id)))
        inbox.push({ brokerageId: id, state, count });
    }
    return { outbox, inbox };
  }
}

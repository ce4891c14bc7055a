import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { wantsCrmChangeWebhooks } from '../brokerages/crm-webhook-url';
import { CrmSetupService } from '../brokerages/crm-setup.service';
import { ConfigService } from '../config/config.service';

// At start, each brokerage whose CRM can notify the daemon of changes (Follow Up Boss) registers
// its webhooks, idempotently and in the background. A failure is logged and nothing else: polling
// keeps every brokerage in step, and `setup-crm` (or the next start) registers again.
@Injectable()
export class CrmWebhookRegistrationOnStart implements OnApplicationBootstrap {
  private readonly logger = new Logger('CrmWebhooks');

  constructor(
    private readonly config: ConfigService,
    private readonly setup: CrmSetupService,
  ) {}

  onApplicationBootstrap(): void {
    for (const brokerage of this.config.enabledBrokerages().filter(wantsCrmChangeWebhooks)) {
      void this.setup
        .subscribeToChanges(brokerage.id)
        .then((report) => {
          const made = report?.items.filter((i) => i.outcome !== 'already present') ?? [];
          if (made.length > 0)
            this.logger.log(`${brokerage.id}: ${made.map((i) => `${i.item} ${i.outcome}`).join(', ')}`);
        })
        .catch((error: unknown) =>
          this.logger.warn(
            `${brokerage.id}: could not register the CRM's change webhooks (${error instanceof Error ? error.message : String(error)}); crm-changes keeps polling on its schedule`,
          ),
        );
    }
  }
}

import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import type { LoadedBrokerage } from '../config/config.loader';
import type { ConfigDiff } from '../config/config-diff';
import { ConfigService } from '../config/config.service';
import { EarlyRunTrigger } from '../scheduler/early-run.trigger';
import { WebhookRegistrationQueue } from './webhook-registration.queue';

// At start, and after a config reload for each brokerage it added or changed, a brokerage whose
// registered webhook URL is not the configured one (a new public base URL, a rotated secret) gets
// its `register_webhook` command, and its outbox drain runs at once rather than on its next tick,
// so the service learns the URL within seconds and no delivery goes to the old one for long.
// Failures are the outbox's to retry; one brokerage's never holds up the start, the reload or the others.
@Injectable()
export class WebhookRegistrationOnConfig implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('WebhookRegistration');
  private unsubscribe?: () => void;

  constructor(
    private readonly config: ConfigService,
    private readonly queue: WebhookRegistrationQueue,
    private readonly trigger: EarlyRunTrigger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.unsubscribe = this.config.onChange((diff) => this.onReload(diff));
    await Promise.all(this.config.enabledBrokerages().map((b) => this.queueFor(b)));
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
  }

  private async onReload(diff: ConfigDiff): Promise<void> {
    const enabled = new Set(this.config.enabledBrokerages().map((b) => b.id));
    const touched = [...diff.added, ...diff.changed].filter((b) => enabled.has(b.id));
    await Promise.all(touched.map((b) => this.queueFor(b)));
  }

  private async queueFor(brokerage: LoadedBrokerage): Promise<void> {
    const brokerageId = brokerage.id;
    try {
      const command = await this.queue.enqueue(brokerage);
      if (!command) return;
      this.logger.log(`${brokerageId}: webhook URL to register (outbox command ${command.id})`);
      await this.trigger.request(brokerageId, 'outbox-drain');
    } catch (error) {
      this.logger.error(
        `could not queue the webhook registration of ${brokerageId}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
}

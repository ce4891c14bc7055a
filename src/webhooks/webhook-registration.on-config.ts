import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import type { LoadedBrokerage } from '../config/config.loader';
import { ConfigService } from '../config/config.service';
import { EarlyRunTrigger } from '../scheduler/early-run.trigger';
import { WebhookRegistrationQueue } from './webhook-registration.queue';

// At start, each brokerage whose registered webhook URL is not the configured one gets its
// `register_webhook` command, and its outbox drain runs at once rather than on its next tick, so the
// service learns the URL within seconds. Failures are the outbox's to retry; one brokerage's never
// holds up the start or the others.
@Injectable()
export class WebhookRegistrationOnStart implements OnApplicationBootstrap {
  private readonly logger = new Logger('WebhookRegistration');

  constructor(
    private readonly config: ConfigService,
    private readonly queue: WebhookRegistrationQueue,
    private readonly trigger: EarlyRunTrigger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await Promise.all(this.config.enabledBrokerages().map((b) => this.queueFor(b)));
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

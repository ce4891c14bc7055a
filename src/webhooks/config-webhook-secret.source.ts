import { Injectable } from '@nestjs/common';
import { ConfigService } from '../config/config.service';
import { BrokerageWebhookSecrets } from './webhook-secret';
import { WebhookSecretSource } from './webhook-secret.source';

// Secrets of enabled brokerages, read from the live config so a reload (or rotation) applies at once.
@Injectable()
export class ConfigWebhookSecretSource extends WebhookSecretSource {
  constructor(private readonly config: ConfigService) {
    super();
  }

  secretsFor(brokerageId: string): BrokerageWebhookSecrets | undefined {
    const brokerage = this.config.get(brokerageId);
    if (!brokerage || brokerage.config.enabled === false) return undefined;
    const { secrets, config } = brokerage;
    const until = config.webhooks.previousSecretValidUntil;
    return {
      current: secrets.webhookSecret,
      previous: secrets.previousWebhookSecret,
      previousValidUntil: until ? new Date(until) : undefined,
    };
  }
}

import { BrokerageWebhookSecrets } from './webhook-secret';

// Where intake learns each brokerage's webhook secrets; the config module provides it.
export abstract class WebhookSecretSource {
  abstract secretsFor(brokerageId: string): BrokerageWebhookSecrets | undefined;
}

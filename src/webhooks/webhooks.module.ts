import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { BrokeragesModule } from '../brokerages/brokerages.module';
import { ConfigWebhookSecretSource } from './config-webhook-secret.source';
import { InboxDrainJob } from './inbox-drain.job';
import { InboxEventHandlers } from './inbox-event.handlers';
import { InboxProcessor } from './inbox.processor';
import { WebhookController } from './webhook.controller';
import { WebhookIntakeService } from './webhook-intake.service';
import { WebhookRegistrationOnStart } from './webhook-registration.on-start';
import { WebhookRegistrationService } from './webhook-registration.service';
import { WebhookUrlProbe } from './webhook-url.probe';
import { WebhookSecretSource } from './webhook-secret.source';

// The inbox worker and registration, shared by the daemon and the CLI (replay, register-webhooks,
// sync --job inbox-drain). Needs ConfigModule, LedgerModule, MetricsModule, SchedulerModule and a Clock.
@Module({
  imports: [DiscoveryModule, BrokeragesModule],
  providers: [InboxEventHandlers, InboxProcessor, InboxDrainJob, WebhookRegistrationService, WebhookUrlProbe],
  exports: [InboxEventHandlers, InboxProcessor, WebhookRegistrationService],
})
export class WebhooksModule {}

// What only the long-running daemon adds: the receiving endpoint and registration at start.
@Module({
  imports: [WebhooksModule],
  controllers: [WebhookController],
  providers: [
    WebhookIntakeService,
    WebhookRegistrationOnStart,
    { provide: WebhookSecretSource, useClass: ConfigWebhookSecretSource },
  ],
})
export class WebhookIntakeModule {}

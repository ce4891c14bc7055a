import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { BrokeragesModule } from '../brokerages/brokerages.module';
import { OutboxModule } from '../sync/outbox/outbox.module';
import { CrmSetupModule } from '../brokerages/crm-setup.module';
import { ConfigWebhookSecretSource } from './config-webhook-secret.source';
import { CrmWebhookController } from './crm-webhook.controller';
import { CrmWebhookIntakeService } from './crm-webhook-intake.service';
import { CrmWebhookRegistrationOnStart } from './crm-webhook-registration.on-start';
import { FollowUpRuns } from './follow-up-runs';
import { HubSpotWebhookIntakeService } from './hubspot-webhook-intake.service';
import { InboxModule } from '../inbox/inbox.module';
import { WebhookController } from './webhook.controller';
import { WebhookIntakeService } from './webhook-intake.service';
import { WebhookRegistrationOnConfig } from './webhook-registration.on-config';
import { WebhookRegistrationExecutor } from './webhook-registration.executor';
import { WebhookRegistrationQueue } from './webhook-registration.queue';
import { WebhookRegistrationService } from './webhook-registration.service';
import { WebhookUrlProbe } from './webhook-url.probe';
import { WebhookSecretSource } from './webhook-secret.source';

// The inbox worker (InboxModule, passed on) and registration (the `register_webhook` outbox
// command), shared by the daemon and the CLI (replay, register-webhooks, sync --job inbox-drain).
// Needs ConfigModule, LedgerModule, MetricsModule, SchedulerModule and a Clock.
@Module({
  imports: [DiscoveryModule, BrokeragesModule, OutboxModule, InboxModule],
  providers: [
    WebhookRegistrationExecutor,
    WebhookRegistrationQueue,
    WebhookRegistrationService,
    WebhookUrlProbe,
  ],
  exports: [InboxModule, WebhookRegistrationQueue, WebhookRegistrationService],
})
export class WebhooksModule {}

// What only the long-running daemon adds: the receiving endpoints (the service's events, the CRM's
// change notifications) and registration at start.
@Module({
  imports: [WebhooksModule, CrmSetupModule],
  controllers: [WebhookController, CrmWebhookController],
  providers: [
    WebhookIntakeService,
    WebhookRegistrationOnConfig,
    CrmWebhookIntakeService,
    HubSpotWebhookIntakeService,
    FollowUpRuns,
    CrmWebhookRegistrationOnStart,
    { provide: WebhookSecretSource, useClass: ConfigWebhookSecretSource },
  ],
})
export class WebhookIntakeModule {}

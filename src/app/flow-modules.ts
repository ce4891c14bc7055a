import type { DynamicModule, Type } from '@nestjs/common';
import { AlertsModule } from '../alerts/alerts.module';
import { CrmSetupModule } from '../brokerages/crm-setup.module';
import { BuyerSyncModule } from '../sync/buyer-sync.module';
import { OutboxOperationsCheckModule } from '../sync/outbox/outbox-operations.check';
import { SellerSyncModule } from '../sync/seller-sync.module';
import { WebhookIntakeModule, WebhooksModule } from '../webhooks/webhooks.module';

// The slots for what plugs into the daemon and the CLI: the sync flows, whose jobs, consumers,
// executors and inbox handlers are found by their decorators; webhook intake brings its controller
// and the inbox worker. Add each module here once; both entry points pick it up.
export const FLOW_MODULES: (Type<unknown> | DynamicModule)[] = [
  WebhooksModule,
  CrmSetupModule,
  SellerSyncModule,
  BuyerSyncModule,
];

// Modules only the long-running daemon needs (HTTP intake, the start check of the outbox, alerts).
export const DAEMON_ONLY_MODULES: (Type<unknown> | DynamicModule)[] = [
  WebhookIntakeModule,
  AlertsModule,
  OutboxOperationsCheckModule,
];

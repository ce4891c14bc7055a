import type { DynamicModule, Type } from '@nestjs/common';
import { CrmSetupModule } from '../brokerages/crm-setup.module';
import { BuyerSyncModule } from '../sync/buyer-sync.module';
import { SellerSyncModule } from '../sync/seller-sync.module';
import { WebhookIntakeModule, WebhooksModule } from '../webhooks/webhooks.module';

// The slots for what plugs into the daemon and the CLI: the sync flows (issues 6, 7) register their job
// handlers with JobRegistry in onModuleInit; webhook intake (issue 8) brings its controller and the
// inbox worker. Add each module here once; both entry points pick it up.
export const FLOW_MODULES: (Type<unknown> | DynamicModule)[] = [
  WebhooksModule,
  CrmSetupModule,
  SellerSyncModule,
  BuyerSyncModule,
];

// Modules only the long-running daemon needs (HTTP intake and the like).
export const DAEMON_ONLY_MODULES: (Type<unknown> | DynamicModule)[] = [WebhookIntakeModule];

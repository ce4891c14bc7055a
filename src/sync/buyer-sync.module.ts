import { Module } from '@nestjs/common';
import { BrokeragesModule } from '../brokerages/brokerages.module';
import { BuyerLeadExecutor } from './buyer-leads/buyer-lead.executor';
import { BuyerLeadsConsumer } from './buyer-leads/buyer-leads.consumer';
import { CrmChangesModule } from './crm-changes/crm-changes.module';
import { DemandCheckConsumer } from './demand-check/demand-check.consumer';
import { MarketplaceJob } from './marketplace/marketplace.job';
import { OutboxModule } from './outbox/outbox.module';
import { PushToMarketplaceConsumer } from './push-to-marketplace/push.consumer';
import { PushToMarketplaceExecutor } from './push-to-marketplace/push.executor';

// The buyer side: the marketplace mirrored into the CRM (its own job), buyer leads and push
// to marketplace (crm-changes consumers + outbox executors), and the demand check (a consumer).
@Module({
  imports: [BrokeragesModule, CrmChangesModule, OutboxModule],
  providers: [
    MarketplaceJob,
    BuyerLeadsConsumer,
    BuyerLeadExecutor,
    PushToMarketplaceConsumer,
    PushToMarketplaceExecutor,
    DemandCheckConsumer,
  ],
})
export class BuyerSyncModule {}

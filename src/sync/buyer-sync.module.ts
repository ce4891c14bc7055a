import { Module } from '@nestjs/common';
import { BrokeragesModule } from '../brokerages/brokerages.module';
import { MarketplaceJob } from './marketplace/marketplace.job';

// The buyer side (issue 7): the marketplace mirrored into the CRM, buyer leads, push to
// marketplace and the demand check.
@Module({
  imports: [BrokeragesModule],
  providers: [MarketplaceJob],
})
export class BuyerSyncModule {}

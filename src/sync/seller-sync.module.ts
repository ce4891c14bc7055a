import { Module } from '@nestjs/common';
import { RecordIssues } from './common/record-issues';
import { CrmChangesModule } from './crm-changes/crm-changes.module';
import { OutboxModule } from './outbox/outbox.module';
import { CreateOfferRequestExecutor } from './seller-requests/create-offer-request.executor';
import { SellerRequestsConsumer } from './seller-requests/seller-requests.consumer';

// The seller side (issue 6): listing deals become offer requests, offers come back, agents decide.
@Module({
  imports: [CrmChangesModule, OutboxModule],
  providers: [RecordIssues, CreateOfferRequestExecutor, SellerRequestsConsumer],
})
export class SellerSyncModule {}

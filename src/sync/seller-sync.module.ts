import { Module } from '@nestjs/common';
import { CrmChangesModule } from './crm-changes/crm-changes.module';
import { OutboxModule } from './outbox/outbox.module';

// The seller side (issue 6): listing deals become offer requests, offers come back, agents decide.
@Module({
  imports: [CrmChangesModule, OutboxModule],
})
export class SellerSyncModule {}

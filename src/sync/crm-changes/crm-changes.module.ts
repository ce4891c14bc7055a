import { Module } from '@nestjs/common';
import { BrokeragesModule } from '../../brokerages/brokerages.module';
import { CrmChangeConsumers } from './crm-change.consumers';
import { CrmChangesJob } from './crm-changes.job';

// The `crm-changes` job and the registry its consumers join. Import it to register a consumer.
@Module({
  imports: [BrokeragesModule],
  providers: [CrmChangeConsumers, CrmChangesJob],
  exports: [CrmChangeConsumers, BrokeragesModule],
})
export class CrmChangesModule {}

import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { BrokeragesModule } from '../../brokerages/brokerages.module';
import { CrmChangeConsumers } from './crm-change.consumers';
import { CrmChangesJob } from './crm-changes.job';
import { SharedChangeReads } from './shared-change.reads';

// The `crm-changes` job and the registry that finds its @CrmChangeConsumer providers.
@Module({
  imports: [DiscoveryModule, BrokeragesModule],
  providers: [CrmChangeConsumers, SharedChangeReads, CrmChangesJob],
  exports: [BrokeragesModule],
})
export class CrmChangesModule {}

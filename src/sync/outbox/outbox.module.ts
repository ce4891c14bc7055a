import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { BrokeragesModule } from '../../brokerages/brokerages.module';
import { CrmWriteBackExecutor } from './crm-write-back.executor';
import { OutboxDrainJob } from './outbox-drain.job';
import { OutboxDrainService } from './outbox-drain.service';
import { OutboxExecutors } from './outbox.executors';

// The `outbox-drain` job, the registry that finds every @OutboxExecutor, and the CRM write-back.
// OutboxDrainService is exported for callers that run one command at once (`register-webhooks`).
@Module({
  imports: [DiscoveryModule, BrokeragesModule],
  providers: [OutboxExecutors, OutboxDrainService, OutboxDrainJob, CrmWriteBackExecutor],
  exports: [OutboxExecutors, OutboxDrainService, BrokeragesModule],
})
export class OutboxModule {}

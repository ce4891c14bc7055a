import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { BrokeragesModule } from '../../brokerages/brokerages.module';
import { DecisionHistoryRecorder } from '../history/decision-history.recorder';
import { CrmWriteBackExecutor } from './crm-write-back.executor';
import { OutboxDrainJob } from './outbox-drain.job';
import { OutboxDrainService } from './outbox-drain.service';
import { OutboxExecutors } from './outbox.executors';
import { ReceivedConfirmations } from './received-confirmations';

// The `outbox-drain` job, the registry that finds every @OutboxExecutor, the CRM write-back, and the
// decision history's recorder (the drain and the offer flows write it).
// OutboxDrainService is exported for callers that run one command at once (`register-webhooks`),
// ReceivedConfirmations for the CLI's `confirm-received`.
@Module({
  imports: [DiscoveryModule, BrokeragesModule],
  providers: [
    OutboxExecutors,
    OutboxDrainService,
    OutboxDrainJob,
    CrmWriteBackExecutor,
    DecisionHistoryRecorder,
    ReceivedConfirmations,
  ],
  exports: [
    OutboxExecutors,
    OutboxDrainService,
    BrokeragesModule,
    DecisionHistoryRecorder,
    ReceivedConfirmations,
  ],
})
export class OutboxModule {}

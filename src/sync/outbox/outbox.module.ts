import { Module } from '@nestjs/common';
import { BrokeragesModule } from '../../brokerages/brokerages.module';
import { OutboxDrainJob } from './outbox-drain.job';
import { OutboxDrainService } from './outbox-drain.service';
import { OutboxExecutors } from './outbox.executors';

// The `outbox-drain` job and the registry of executors. Import it to register an executor.
@Module({
  imports: [BrokeragesModule],
  providers: [OutboxExecutors, OutboxDrainService, OutboxDrainJob],
  exports: [OutboxExecutors, BrokeragesModule],
})
export class OutboxModule {}

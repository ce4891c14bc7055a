import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { InboxDrainJob } from './inbox-drain.job';
import { InboxEventHandlers } from './inbox-event.handlers';
import { InboxProcessor } from './inbox.processor';

// The inbox worker: the `inbox-drain` job applies stored events through the @InboxHandler methods
// the flows declare. Below the flows (they declare handlers) and below the webhook intake (it stores
// the events). Needs LedgerModule, MetricsModule, SchedulerModule and a Clock.
@Module({
  imports: [DiscoveryModule],
  providers: [InboxEventHandlers, InboxProcessor, InboxDrainJob],
  exports: [InboxEventHandlers, InboxProcessor],
})
export class InboxModule {}

import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { BrokeragesHealthIndicator } from './brokerages.health';
import { HealthController } from './health.controller';
import { LedgerHealthIndicator } from './ledger.health';

@Module({
  imports: [TerminusModule.forRoot({ logger: false })],
  controllers: [HealthController],
  providers: [LedgerHealthIndicator, BrokeragesHealthIndicator],
})
export class HealthModule {}

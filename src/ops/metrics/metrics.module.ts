import { Global, Module } from '@nestjs/common';
import { LedgerDepthCollector } from './ledger-depth.collector';
import { MetricsController } from './metrics.controller';
import { MetricsService } from '../../observability/metrics/metrics.service';

// MetricsService is global: flows, clients and webhook intake record through it.
@Global()
@Module({
  controllers: [MetricsController],
  providers: [MetricsService, LedgerDepthCollector],
  exports: [MetricsService],
})
export class MetricsModule {}

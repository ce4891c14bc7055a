export { MetricsModule } from './metrics.module';
export { LedgerDepthCollector } from './ledger-depth.collector';

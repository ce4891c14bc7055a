export {
  MetricsService,
  type WebhookEventResult,
  type CrmWebhookResult,
  type RunStatusLabel,
  type DepthRow,
} from './metrics.service';
export { MetricsModule } from './metrics.module';
export { LedgerDepthCollector } from './ledger-depth.collector';

export {
  MetricsService,
  type WebhookEventResult,
  type CrmWebhookResult,
  type RunStatusLabel,
  type DepthRow,
} from './metrics.service';

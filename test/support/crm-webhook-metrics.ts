import { MetricsService } from '../../src/observability/metrics/metrics.service';
import { BROKERAGE, type SyncTestApp } from './sync-app';

// How many CRM change notifications the app counted with this result (`triggered`, `invalid`,
// `forged`, ...), for one brokerage (the test's own by default), of one CRM or of either.
export async function crmWebhookCount(
  t: SyncTestApp,
  result: string,
  options: { brokerage?: string; crm?: 'hubspot' | 'followupboss' } = {},
): Promise<number> {
  const brokerage = options.brokerage ?? BROKERAGE;
  const metric = t.app
    .get(MetricsService)
    .registry.getSingleMetric('cash_offer_sync_crm_webhook_events_total');
  const values = (await metric?.get())?.values ?? [];
  return values
    .filter(
      (v) =>
        v.labels.brokerage === brokerage &&
        v.labels.result === result &&
        (options.crm === undefined || v.labels.crm === options.crm),
    )
    .reduce((sum, v) => sum + v.value, 0);
}

import type { LoadedBrokerage } from '../config/config.loader';
import { CASH_OFFER_CRM_SCHEMA } from '../crm/crm-schema';
import { parseMappingOverrides } from '../crm/mapping/crm-field-mapping';
import { crmWebhookUrl } from './crm-webhook-url';

// What a brokerage's HubSpot private app subscribes to so that an agent's action reaches the daemon
// in seconds: the creation of a deal, and a change of every property an agent sets to ask the
// daemon for something. Properties the daemon writes back itself are left out, so its own writes
// do not wake it again.
export interface HubSpotWebhookSubscription {
  subscriptionType: 'object.creation' | 'object.propertyChange';
  objectName: 'deal' | 'contact';
  propertyName?: string;
}

// Agent inputs of the cash-offer schema (crm-schema.ts): the request trigger, push to marketplace,
// the demand check, photo links, the test flag, the counter fields; on contacts, the buyer lead flag.
const AGENT_DEAL_INPUTS = new Set([
  'cash_offer_request_trigger',
  'cash_offer_push_to_marketplace',
  'cash_offer_marketplace_expiration',
  'cash_offer_demand_check',
  'cash_offer_photo_urls',
  'cash_offer_test_record',
]);
const DAEMON_WRITTEN_COUNTER = new Set(['cash_offer_counter_offer_id', 'cash_offer_counter_status']);
const AGENT_CONTACT_INPUTS = ['cash_offer_submit_lead'];

export function hubSpotWebhookSubscriptions(brokerage: LoadedBrokerage): HubSpotWebhookSubscription[] {
  const { crm } = brokerage.config;
  const deal = new Set<string>(['dealstage', 'pipeline']);
  if (crm.pipelines.listings.triggerProperty) deal.add(crm.pipelines.listings.triggerProperty);
  for (const property of CASH_OFFER_CRM_SCHEMA.properties) {
    if (property.kind !== 'deal') continue;
    const counterInput =
      property.name.startsWith('cash_offer_counter_') && !DAEMON_WRITTEN_COUNTER.has(property.name);
    if (AGENT_DEAL_INPUTS.has(property.name) || counterInput) deal.add(property.name);
  }
  const contact = new Set<string>(AGENT_CONTACT_INPUTS);
  // The listing's fields (later edits go out as request updates), wherever the mapping reads them.
  for (const source of Object.values(parseMappingOverrides(crm.mapping?.overrides, 'hubspot'))) {
    for (const name of source.properties) (source.source === 'deal' ? deal : contact).add(name);
  }
  return [
    { subscriptionType: 'object.creation', objectName: 'deal' },
    ...[...deal].sort().map((propertyName) => ({
      subscriptionType: 'object.propertyChange' as const,
      objectName: 'deal' as const,
      propertyName,
    })),
    ...[...contact].sort().map((propertyName) => ({
      subscriptionType: 'object.propertyChange' as const,
      objectName: 'contact' as const,
      propertyName,
    })),
  ];
}

// A project-based private app's `webhooks.json` (HubSpot's "private apps: webhooks" page): the
// target URL, a concurrency cap, and the subscriptions above, each active.
export function hubSpotWebhooksJson(
  brokerage: LoadedBrokerage,
  maxConcurrentRequests = 10,
): Record<string, unknown> {
  return {
    settings: { targetUrl: crmWebhookUrl(brokerage), maxConcurrentRequests },
    subscriptions: {
      crmObjects: hubSpotWebhookSubscriptions(brokerage).map((s) => ({ ...s, active: true })),
    },
  };
}

// The same for an app on HubSpot's newer developer platform (`webhooks/*-hsmeta.json`, "Configure
// webhooks"), which names the object `objectType`.
export function hubSpotWebhooksHsMeta(
  brokerage: LoadedBrokerage,
  maxConcurrentRequests = 10,
): Record<string, unknown> {
  return {
    uid: 'cash_offer_sync_webhooks',
    type: 'webhooks',
    config: {
      settings: { targetUrl: crmWebhookUrl(brokerage), maxConcurrentRequests },
      subscriptions: {
        crmObjects: hubSpotWebhookSubscriptions(brokerage).map(({ objectName, ...s }) => ({
          ...s,
          objectType: objectName,
          active: true,
        })),
      },
    },
  };
}

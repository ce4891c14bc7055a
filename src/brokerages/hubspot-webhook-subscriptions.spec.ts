import type { LoadedBrokerage } from '../config/config.loader';
import { takesHubSpotWebhooks } from './crm-webhook-url';
import {
  hubSpotWebhooksHsMeta,
  hubSpotWebhooksJson,
  hubSpotWebhookSubscriptions,
} from './hubspot-webhook-subscriptions';

function brokerage(crm: Record<string, unknown> = {}, clientSecret?: string): LoadedBrokerage {
  return {
    id: 'acme',
    file: 'acme.yaml',
    fingerprint: 'v1',
    config: {
      id: 'acme',
      crm: {
        kind: 'hubspot',
        pipelines: { listings: { pipelineId: 'default', triggerStageId: 's1' } },
        ...crm,
      },
      webhooks: { publicBaseUrl: 'https://sync.acme.example/' },
    },
    secrets: { ...(clientSecret ? { crmClientSecret: clientSecret } : {}) },
  } as unknown as LoadedBrokerage;
}

describe('HubSpot webhook subscriptions', () => {
  it('subscribe to deal creation and to what an agent sets, never to what the daemon writes back', () => {
    const subscriptions = hubSpotWebhookSubscriptions(brokerage());
    expect(subscriptions[0]).toEqual({ subscriptionType: 'object.creation', objectName: 'deal' });
    const deal = subscriptions.filter((s) => s.objectName === 'deal').map((s) => s.propertyName);
    const contact = subscriptions.filter((s) => s.objectName === 'contact').map((s) => s.propertyName);
    for (const name of [
      'dealstage',
      'cash_offer_request_trigger',
      'cash_offer_push_to_marketplace',
      'cash_offer_counter_amount',
      'listing_street_name',
      'amount',
    ])
      expect(deal).toContain(name);
    for (const name of [
      'cash_offer_request_id',
      'cash_offer_request_status',
      'cash_offer_sync_error',
      'cash_offer_offer_status',
      'cash_offer_counter_status',
      'cash_offer_counter_offer_id',
      'cash_offer_listing_key',
    ])
      expect(deal).not.toContain(name);
    expect(contact).toEqual(['cash_offer_submit_lead', 'firstname', 'lastname']);
  });

  it("follow the brokerage's mapping and trigger property", () => {
    const names = hubSpotWebhookSubscriptions(
      brokerage({
        pipelines: { listings: { pipelineId: 'default', triggerProperty: 'acme_go' } },
        mapping: { overrides: { StreetName: 'acme_street' } },
      }),
    ).map((s) => s.propertyName);
    expect(names).toContain('acme_go');
    expect(names).toContain('acme_street');
    expect(names).not.toContain('listing_street_name');
  });

  it('write webhooks.json (objectName) and the newer hsmeta (objectType) with the target URL', () => {
    const json = hubSpotWebhooksJson(brokerage()) as {
      settings: unknown;
      subscriptions: { crmObjects: Record<string, unknown>[] };
    };
    expect(json.settings).toEqual({
      targetUrl: 'https://sync.acme.example/webhooks/crm/hubspot/acme',
      maxConcurrentRequests: 10,
    });
    expect(json.subscriptions.crmObjects[1]).toEqual({
      subscriptionType: 'object.propertyChange',
      objectName: 'deal',
      propertyName: 'amount',
      active: true,
    });
    const meta = hubSpotWebhooksHsMeta(brokerage()) as {
      type: string;
      config: { subscriptions: { crmObjects: Record<string, unknown>[] } };
    };
    expect(meta.type).toBe('webhooks');
    expect(meta.config.subscriptions.crmObjects[0]).toEqual({
      subscriptionType: 'object.creation',
      objectType: 'deal',
      active: true,
    });
  });

  it('are taken only with a client secret, on HubSpot, unless turned off', () => {
    expect(takesHubSpotWebhooks(brokerage({}, 'secret'))).toBe(true);
    expect(takesHubSpotWebhooks(brokerage({}))).toBe(false);
    expect(takesHubSpotWebhooks(brokerage({ changeWebhooks: false }, 'secret'))).toBe(false);
    expect(takesHubSpotWebhooks(brokerage({ kind: 'followupboss' }, 'secret'))).toBe(false);
  });
});

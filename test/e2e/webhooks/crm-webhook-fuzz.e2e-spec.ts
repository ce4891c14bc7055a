import { createHmac, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { hubSpotSignatureV3 } from '../../../sandbox/hubspot';
import { hubSpotWebhooksJson } from '../../../src/brokerages/hubspot-webhook-subscriptions';
import { ConfigService } from '../../../src/config/config.service';
import { fuzzedBodies, hostileBodies, type BodyShape } from '../../support/hostile-bodies';
import { crmWebhookCount } from '../../support/crm-webhook-metrics';
import { hubSpotChangeEvent } from '../../support/hubspot-change-event';
import { BROKERAGE, startSyncApp, type SyncTestApp } from '../../support/sync-app';

// The CRM listeners under the same fuzzing as the Cash Offer one (webhook-fuzz.e2e-spec.ts), each
// body signed as its CRM signs (so it reaches the parser, past the signature check): HubSpot's
// batches (an array of events, X-HubSpot-Signature-v3) and Follow Up Boss's events (FUB-Signature).
// Every answer is a 2xx or a 4xx, every refusal is counted, and the listener still takes a real
// event afterwards. The shapes of a real event are the vendors' published ones (crm-apis.md).
const PAYLOADS = 400;
const HOSTILE_PAYLOADS = 60;
const CONCURRENCY = 8;
const ANSWERED = [200, 400, 401, 413];

interface Listener {
  name: string;
  shape: BodyShape;
  valid: () => string;
  post: (body: Buffer) => Promise<Response>;
}

async function deliver(listener: Listener, bodies: string[]): Promise<Map<number, number>> {
  const statuses = new Map<number, number>();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < bodies.length) {
      const answer = await listener.post(Buffer.from(bodies[next++], 'utf8'));
      await answer.arrayBuffer();
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return statuses;
}

function hubSpotListener(t: SyncTestApp): Listener {
  const brokerage = t.app.get(ConfigService).get(BROKERAGE)!;
  const url = (hubSpotWebhooksJson(brokerage) as { settings: { targetUrl: string } }).settings.targetUrl;
  const secret = t.hubspot.clientSecret;
  let eventId = 5_000_000;
  return {
    name: 'HubSpot',
    shape: {
      validEvents: [hubSpotChangeEvent(1), { ...hubSpotChangeEvent(2), subscriptionType: 'object.creation' }],
      fields: ['eventId', 'objectId', 'subscriptionType', 'objectTypeId', 'portalId', 'occurredAt'],
      frame: (event) => [event],
    },
    valid: () => JSON.stringify([hubSpotChangeEvent(eventId++)]),
    post: (body) => {
      const timestamp = String(Date.now());
      return fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'X-HubSpot-Request-Timestamp': timestamp,
          'X-HubSpot-Signature-v3': hubSpotSignatureV3('POST', url, body.toString('utf8'), timestamp, secret),
        },
        body,
      });
    },
  };
}

const fubEvent = (event = 'dealsUpdated'): Record<string, unknown> => ({
  eventId: randomUUID(),
  eventCreated: new Date().toISOString(),
  event,
  resourceIds: [1],
  uri: 'https://api.followupboss.com/v1/deals?id=1',
});

function followUpBossListener(t: SyncTestApp): Listener {
  const url = t.hookUrl.replace(/\/webhooks\/.*$/, `/webhooks/crm/followupboss/${BROKERAGE}`);
  const systemKey = t.world.followUpBoss!.systemKey;
  return {
    name: 'Follow Up Boss',
    shape: {
      validEvents: [fubEvent(), fubEvent('peopleUpdated'), fubEvent('dealsCreated')],
      fields: ['eventId', 'event', 'resourceIds', 'uri', 'eventCreated'],
    },
    valid: () => JSON.stringify(fubEvent()),
    post: (body) =>
      fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'FUB-Signature': createHmac('sha256', systemKey).update(body.toString('base64')).digest('hex'),
        },
        body,
      }),
  };
}

describe.each([
  ['hubspot', hubSpotListener],
  ['followupboss', followUpBossListener],
] as const)('the %s change listener under fuzzing', (kind, listenerOf) => {
  let t: SyncTestApp;
  let listener: Listener;

  beforeAll(async () => {
    t = await startSyncApp(
      kind,
      kind === 'hubspot' ? { hubSpotWebhooks: true } : { crmChangeWebhooks: true },
    );
    listener = listenerOf(t);
  });

  afterAll(async () => {
    await t?.close();
  });

  const stillTakesARealEvent = async () => {
    const answer = await listener.post(Buffer.from(listener.valid()));
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { result: string }).result).toMatch(/^(triggered|coalesced)$/);
  };

  it(`answers ${PAYLOADS} random and mutated signed bodies with a 2xx or 4xx, and counts every refusal`, async () => {
    const invalidBefore = await crmWebhookCount(t, 'invalid');
    const bodies = fc.sample(fuzzedBodies(listener.shape), { numRuns: PAYLOADS, seed: 20261129 });
    const statuses = await deliver(listener, bodies);

    expect([...statuses.keys()].filter((code) => !ANSWERED.includes(code))).toEqual([]);
    // The signatures held, so the bodies reached the parser: most were refused for their shape.
    expect(statuses.get(400)).toBeGreaterThan(PAYLOADS / 2);
    expect(await crmWebhookCount(t, 'invalid')).toBe(invalidBefore + (statuses.get(400) ?? 0));
    await stillTakesARealEvent();
  }, 120_000);

  it(`answers ${HOSTILE_PAYLOADS} deeply nested, huge and oddly encoded signed bodies with a 2xx or 4xx`, async () => {
    const bodies = fc.sample(hostileBodies(listener.shape), { numRuns: HOSTILE_PAYLOADS, seed: 20261130 });
    const statuses = await deliver(listener, bodies);

    expect([...statuses.keys()].filter((code) => !ANSWERED.includes(code))).toEqual([]);
    expect(statuses.get(413)).toBeGreaterThan(0);
    await stillTakesARealEvent();
  }, 120_000);
});

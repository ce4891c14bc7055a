import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { startHubSpotEmulator, type HubSpotEmulator } from '../../../sandbox/hubspot';
import { checkHubSpotSignatureV3 } from '../../../src/crm/hubspot/hubspot-webhook';
import { freePort } from '../../support/free-port';
import { waitFor } from '../../support/wait-for';

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  events: {
    eventId: number;
    attemptNumber: number;
    subscriptionType: string;
    propertyName?: string;
    changeSource: string;
  }[];
}

const SECRET = 'emulator-webhook-test-secret-0000';

// The emulator's webhooks as HubSpot sends them, seen by a plain receiver: subscriptions from a
// project's webhooks.json, batches of at most 100 events, v3 signatures, retries and faults.
describe('HubSpot emulator webhooks', () => {
  let hubspot: HubSpotEmulator;
  let receiver: Server;
  let target: string;
  const received: Received[] = [];
  // The status the receiver answers with, per request in turn (then 200).
  let answers: number[] = [];

  const control = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${hubspot.url}/__control/webhooks${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const api = (method: string, path: string, body: unknown) =>
    fetch(`${hubspot.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${hubspot.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const settled = () =>
    waitFor(async () => (await control('GET', '/deliveries')).body.pending === 0, {
      what: 'no webhook delivery pending',
      timeoutMs: 20_000,
    });
  const deliveries = async () =>
    (await control('GET', '/deliveries')).body.deliveries as {
      eventIds: number[];
      attemptNumber: number;
      outcome: unknown;
    }[];

  beforeAll(async () => {
    const port = await freePort();
    target = `http://127.0.0.1:${port}/hooks/acme`;
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString();
        received.push({ headers: req.headers, body, events: JSON.parse(body) as Received['events'] });
        res.statusCode = answers.shift() ?? 200;
        res.end('{}');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(port, '127.0.0.1', resolve));
    hubspot = await startHubSpotEmulator({
      port: 0,
      clientSecret: SECRET,
      searchIndexLagMs: 0,
      webhooks: { retryBaseMs: 20 },
    });
  });

  afterAll(async () => {
    await hubspot?.close();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  beforeEach(async () => {
    await fetch(`${hubspot.url}/__control/reset`, { method: 'POST' });
    received.length = 0;
    answers = [];
    const configured = await control('PUT', '', {
      settings: { targetUrl: target, maxConcurrentRequests: 10 },
      subscriptions: {
        crmObjects: [
          { subscriptionType: 'object.creation', objectName: 'deal', active: true },
          {
            subscriptionType: 'object.propertyChange',
            objectType: 'deal',
            propertyName: 'dealname',
            active: true,
          },
          {
            subscriptionType: 'object.propertyChange',
            objectName: 'deal',
            propertyName: 'amount',
            active: false,
          },
        ],
      },
    });
    expect(configured.status).toBe(200);
  });

  it('posts a signed batch when a deal changes through the API: v3 over method, URI, body and timestamp', async () => {
    const created = (await (
      await api('POST', '/crm/v3/objects/deals', { properties: { dealname: 'A', amount: '5' } })
    ).json()) as { id: string };
    await api('PATCH', `/crm/v3/objects/deals/${created.id}`, { properties: { dealname: 'B', amount: '6' } });
    await settled();
    const events = received.flatMap((r) => r.events);
    // A creation is one creation event (the emulator sends no property changes for it); the update
    // one change per subscribed property (amount's subscription is inactive).
    expect(events.map((e) => [e.subscriptionType, e.propertyName])).toEqual([
      ['object.creation', undefined],
      ['object.propertyChange', 'dealname'],
    ]);
    expect(events[1]).toMatchObject({
      objectId: Number(created.id),
      objectTypeId: '0-3',
      portalId: 12345678,
      appId: 1,
      attemptNumber: 0,
      propertyValue: 'B',
    });
    for (const r of received) {
      const timestamp = String(r.headers['x-hubspot-request-timestamp']);
      const request = { method: 'POST', uri: target, rawBody: Buffer.from(r.body), timestamp };
      expect(
        checkHubSpotSignatureV3(request, String(r.headers['x-hubspot-signature-v3']), SECRET, Date.now()),
      ).toBe('valid');
      expect(r.headers['content-type']).toContain('application/json');
    }
  });

  it('names the source of each change: the API, a person in the UI, a seed (an import)', async () => {
    const created = (await (
      await api('POST', '/crm/v3/objects/deals', { properties: { dealname: 'A' } })
    ).json()) as { id: string };
    await fetch(`${hubspot.url}/__control/objects/deals/${created.id}/ui-change`, {
      method: 'POST',
      body: JSON.stringify({ properties: { dealname: 'B' }, userId: 7 }),
    });
    await fetch(`${hubspot.url}/__control/seed`, {
      method: 'POST',
      body: JSON.stringify({ type: 'deals', count: 1, properties: { dealname: 'C' } }),
    });
    await settled();
    const events = received.flatMap((r) => r.events);
    expect(events.map((e) => [e.subscriptionType, e.changeSource])).toEqual([
      ['object.creation', 'INTEGRATION'],
      ['object.propertyChange', 'CRM_UI'],
      ['object.creation', 'IMPORT'],
    ]);
  });

  it('sends at most 100 events a request', async () => {
    // 150 deals made in one call (the control API's seed): 150 creation events, in two requests.
    await fetch(`${hubspot.url}/__control/seed`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'deals', count: 150, properties: { dealname: 'D{i}' } }),
    });
    await settled();
    expect(received.map((r) => r.events.length)).toEqual([100, 50]);
    expect(new Set(received.flatMap((r) => r.events.map((e) => e.eventId))).size).toBe(150);
  });

  it('retries a failed delivery with the same event ids and a growing attemptNumber, each signed anew', async () => {
    answers = [500, 503];
    await api('POST', '/crm/v3/objects/deals', { properties: { dealname: 'R' } });
    await settled();
    expect(received.map((r) => r.events.map((e) => e.attemptNumber))).toEqual([[0], [1], [2]]);
    expect(new Set(received.map((r) => r.events.map((e) => e.eventId).join()))).toHaveProperty('size', 1);
    expect((await deliveries()).map((d) => d.outcome)).toEqual([500, 503, 200]);
  });

  it('gives up after maxRetries, and never retries a 4xx other than 429', async () => {
    await control('PUT', '/settings', { maxRetries: 2 });
    answers = [500, 500, 500, 500];
    await api('POST', '/crm/v3/objects/deals', { properties: { dealname: 'G' } });
    await settled();
    expect((await deliveries()).map((d) => d.outcome)).toEqual([500, 500, 500]);
    answers = [401];
    await api('POST', '/crm/v3/objects/deals', { properties: { dealname: 'H' } });
    await settled();
    expect((await deliveries()).slice(3).map((d) => d.outcome)).toEqual([401]);
  });

  it('faults: a dropped batch never arrives, a duplicated one arrives twice, a badly signed one fails the check', async () => {
    await control('PUT', '/faults', { drop: 1 });
    await api('POST', '/crm/v3/objects/deals', { properties: { dealname: 'X' } });
    await settled();
    expect(received).toHaveLength(0);
    expect((await deliveries()).map((d) => d.outcome)).toEqual(['dropped']);

    await control('PUT', '/faults', { duplicate: 1 });
    await api('POST', '/crm/v3/objects/deals', { properties: { dealname: 'Y' } });
    await settled();
    expect(received).toHaveLength(2);
    expect(received[0].body).toBe(received[1].body);

    await control('PUT', '/faults', { badSignature: 1 });
    await api('POST', '/crm/v3/objects/deals', { properties: { dealname: 'Z' } });
    await settled();
    const forged = received[2];
    const request = {
      method: 'POST',
      uri: target,
      rawBody: Buffer.from(forged.body),
      timestamp: String(forged.headers['x-hubspot-request-timestamp']),
    };
    expect(
      checkHubSpotSignatureV3(request, String(forged.headers['x-hubspot-signature-v3']), SECRET, Date.now()),
    ).toBe('forged');
  });

  it('refuses a webhooks.json it cannot read, naming the field', async () => {
    const bad = await control('PUT', '', {
      settings: { targetUrl: 'ftp://x' },
      subscriptions: { crmObjects: [] },
    });
    expect(bad.status).toBe(400);
    const noProperty = await control('PUT', '', {
      settings: { targetUrl: target },
      subscriptions: { crmObjects: [{ subscriptionType: 'object.propertyChange', objectName: 'deal' }] },
    });
    expect(noProperty.status).toBe(400);
    expect(JSON.stringify(noProperty.body)).toContain('propertyName');
  });
});

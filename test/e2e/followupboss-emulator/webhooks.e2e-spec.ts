import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  startFollowUpBossEmulator,
  type DeliveryAttempt,
  type FollowUpBossEmulator,
} from '../../../sandbox/followupboss';

interface Received {
  body: string;
  signature: string | undefined;
}

// FUB's webhooks as the emulator plays them (docs/crm-followupboss.md, "Webhooks"): the /v1/webhooks
// API, signed deliveries batched per event, retries with backoff, and the delivery faults.
describe('Follow Up Boss emulator webhooks', () => {
  let fub: FollowUpBossEmulator;
  let receiver: Server;
  let receiverUrl: string;
  const received: Received[] = [];
  // The status the receiver answers next (then 200 again).
  let answers: number[] = [];

  const headers = (system = true): Record<string, string> => ({
    authorization: `Basic ${Buffer.from(`${fub.apiKey}:`).toString('base64')}`,
    'content-type': 'application/json',
    ...(system ? { 'X-System': fub.system, 'X-System-Key': fub.systemKey } : {}),
  });

  async function api(
    method: string,
    path: string,
    body?: unknown,
    system = true,
  ): Promise<{ status: number; body: Record<string, unknown> }> {
    const res = await fetch(`${fub.url}/v1${path}`, {
      method,
      headers: headers(system),
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
  }

  const control = async (method: string, path: string, body?: unknown): Promise<unknown> => {
    const res = await fetch(`${fub.url}/__control/${path}`, {
      method,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return res.json();
  };

  async function settled(): Promise<DeliveryAttempt[]> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const log = (await control('GET', 'webhooks/deliveries')) as {
        pending: number;
        deliveries: DeliveryAttempt[];
      };
      if (log.pending === 0 && log.deliveries.length > 0) return log.deliveries;
      if (Date.now() > deadline) throw new Error('webhook deliveries did not settle before the deadline');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  const sign = (body: string, key: string): string =>
    createHmac('sha256', key).update(Buffer.from(body).toString('base64')).digest('hex');

  beforeAll(async () => {
    fub = await startFollowUpBossEmulator({ port: 0, webhooks: { retryBaseMs: 20, timeoutMs: 300 } });
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({
          body: Buffer.concat(chunks).toString('utf8'),
          signature: req.headers['fub-signature'] as string | undefined,
        });
        const status = answers.shift() ?? 200;
        if (status === 0) return; // never answers: the emulator times out
        res.writeHead(status).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  });

  afterAll(async () => {
    await fub.close();
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
  });

  beforeEach(async () => {
    await control('POST', 'reset');
    await control('PUT', 'webhooks/settings', { retryBaseMs: 20, timeoutMs: 300, maxAttempts: 5 });
    received.length = 0;
    answers = [];
  });

  it('creates, lists, reads, updates and deletes webhooks, answering { id, status, event, url }', async () => {
    const created = await api('POST', '/webhooks', { event: 'dealsUpdated', url: receiverUrl });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(Number),
      status: 'Active',
      event: 'dealsUpdated',
      url: receiverUrl,
    });
    const id = created.body.id as number;

    const list = await api('GET', '/webhooks');
    expect(list.body._metadata).toMatchObject({ collection: 'webhooks', total: 1 });
    expect(list.body.webhooks).toEqual([created.body]);
    expect((await api('GET', '/webhooks?event=peopleUpdated')).body.webhooks).toEqual([]);
    expect((await api('GET', `/webhooks/${id}`)).body).toEqual(created.body);

    const moved = await api('PUT', `/webhooks/${id}`, { url: `${receiverUrl}/2` });
    expect(moved.status).toBe(200);
    expect(moved.body.url).toBe(`${receiverUrl}/2`);

    expect((await api('DELETE', `/webhooks/${id}`)).status).toBe(204);
    expect((await api('GET', `/webhooks/${id}`)).status).toBe(404);
  });

  it('refuses an unknown event, a non-https URL off loopback, a third webhook per event, and a call without a system', async () => {
    const bad = await api('POST', '/webhooks', { event: 'dealsExploded', url: receiverUrl });
    expect(bad.status).toBe(400);
    expect(bad.body.errorMessage).toContain('dealsExploded');
    const plain = await api('POST', '/webhooks', { event: 'dealsUpdated', url: 'http://example.com/hook' });
    expect(plain.status).toBe(400);
    expect(plain.body.errorMessage).toContain('https');
    expect(
      (await api('POST', '/webhooks', { event: 'dealsUpdated', url: 'https://example.com/a' })).status,
    ).toBe(201);
    expect(
      (await api('POST', '/webhooks', { event: 'dealsUpdated', url: 'https://example.com/b' })).status,
    ).toBe(201);
    const third = await api('POST', '/webhooks', { event: 'dealsUpdated', url: 'https://example.com/c' });
    expect(third.status).toBe(400);
    expect(third.body.errorMessage).toContain('at most 2');
    const anonymous = await api('POST', '/webhooks', { event: 'peopleUpdated', url: receiverUrl }, false);
    expect(anonymous.status).toBe(400);
    expect(anonymous.body.errorMessage).toContain('X-System');
  });

  it('delivers changes batched per event, signed with the system key over the base64 of the body', async () => {
    await api('POST', '/webhooks', { event: 'peopleCreated', url: receiverUrl });
    await api('POST', '/webhooks', { event: 'peopleUpdated', url: receiverUrl });
    const a = await api('POST', '/people', { firstName: 'Ann', lastName: 'Lee' });
    await settled();
    await api('PUT', `/people/${String(a.body.id)}`, { lastName: 'Leigh' });
    const deliveries = await settled();
    expect(deliveries.map((d) => [d.event, d.outcome])).toEqual([
      ['peopleCreated', 200],
      ['peopleUpdated', 200],
    ]);
    expect(received).toHaveLength(2);
    for (const { body, signature } of received) {
      expect(signature).toBe(sign(body, fub.systemKey));
      const payload = JSON.parse(body) as Record<string, unknown>;
      expect(payload).toEqual({
        eventId: expect.any(String),
        eventCreated: expect.any(String),
        event: expect.stringMatching(/^people(Created|Updated)$/),
        resourceIds: [a.body.id],
        uri: `${fub.url}/v1/people?id=${String(a.body.id)}`,
      });
    }
  });

  it('retries a failed or slow delivery with doubling waits, up to maxAttempts, keeping the eventId', async () => {
    await api('POST', '/webhooks', { event: 'dealsCreated', url: receiverUrl });
    const stage = ((await api('GET', '/pipelines')).body.pipelines as { stages: { id: number }[] }[])[0]
      .stages[0].id;
    answers = [500, 0, 503];
    await api('POST', '/deals', { name: 'D', stageId: stage });
    const deliveries = await settled();
    expect(deliveries.map((d) => [d.attempt, d.outcome])).toEqual([
      [1, 500],
      [2, 'timeout'],
      [3, 503],
      [4, 200],
    ]);
    expect(new Set(deliveries.map((d) => d.eventId)).size).toBe(1);

    await control('PUT', 'webhooks/settings', { maxAttempts: 2 });
    answers = [500, 500, 500];
    await api('POST', '/deals', { name: 'E', stageId: stage });
    const gaveUp = (await settled()).slice(4);
    expect(gaveUp.map((d) => d.outcome)).toEqual([500, 500]);
  });

  it('injects delivery faults: dropped, duplicated, badly signed', async () => {
    await api('POST', '/webhooks', { event: 'peopleCreated', url: receiverUrl });
    await control('PUT', 'webhooks/faults', { drop: 1, duplicate: 1, badSignature: 1 });
    await api('POST', '/people', { firstName: 'A' });
    await settled();
    expect(received).toHaveLength(0);
    await api('POST', '/people', { firstName: 'B' });
    const deliveries = await settled();
    expect(deliveries.map((d) => d.outcome)).toEqual(['dropped', 200, 200]);
    expect(received).toHaveLength(2);
    expect(received[0].body).toBe(received[1].body);
    expect(received[0].signature).not.toBe(sign(received[0].body, fub.systemKey));
  });

  it('delays each delivery by delayMs', async () => {
    await api('POST', '/webhooks', { event: 'peopleCreated', url: receiverUrl });
    await control('PUT', 'webhooks/faults', { delayMs: 300 });
    const changed = Date.now();
    await api('POST', '/people', { firstName: 'Late' });
    const [delivery] = await settled();
    expect(delivery.outcome).toBe(200);
    expect(Date.parse(delivery.at) - changed).toBeGreaterThanOrEqual(300);
  });
});

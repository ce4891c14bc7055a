import { createHmac } from 'node:crypto';
import { startFollowUpBossEmulator, type FollowUpBossEmulator } from '../../../sandbox/followupboss';
import {
  fubApi,
  fubControl,
  settledDeliveries,
  startWebhookReceiver,
  type WebhookReceiver,
} from '../../support/fub-emulator.client';

// FUB's webhooks as the emulator plays them (docs/crm-followupboss.md, "Webhooks"): the /v1/webhooks
// API, signed deliveries batched per event, retries with backoff, and the delivery faults.
describe('Follow Up Boss emulator webhooks', () => {
  let fub: FollowUpBossEmulator;
  let receiver: WebhookReceiver;
  let receiverUrl: string;
  let received: WebhookReceiver['received'];
  // The statuses the receiver answers next (then 200 again).
  let answers: number[];
  const api = (method: string, path: string, body?: unknown, system = true) =>
    fubApi(fub, method, path, body, system);
  const control = (method: string, path: string, body?: unknown) => fubControl(fub, method, path, body);
  const settled = () => settledDeliveries(fub);

  const sign = (body: string, key: string): string =>
    createHmac('sha256', key).update(Buffer.from(body).toString('base64')).digest('hex');

  beforeAll(async () => {
    fub = await startFollowUpBossEmulator({ port: 0, webhooks: { retryBaseMs: 20, timeoutMs: 300 } });
    receiver = await startWebhookReceiver();
    receiverUrl = receiver.url;
    received = receiver.received;
    answers = receiver.answers;
  });

  afterAll(async () => {
    await fub.close();
    await receiver.close();
  });

  beforeEach(async () => {
    await control('POST', 'reset');
    await control('PUT', 'webhooks/settings', { retryBaseMs: 20, timeoutMs: 300, maxAttempts: 5 });
    received.length = 0;
    answers.length = 0;
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
    answers.push(500, 0, 503);
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
    answers.push(500, 500, 500);
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

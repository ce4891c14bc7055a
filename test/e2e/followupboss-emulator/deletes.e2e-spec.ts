import { createHmac } from 'node:crypto';
import { startFollowUpBossEmulator, type FollowUpBossEmulator } from '../../../sandbox/followupboss';
import {
  fubApi,
  fubControl,
  settledDeliveries,
  startWebhookReceiver,
  type WebhookReceiver,
} from '../../support/fub-emulator.client';

// DELETE /v1/people/:id and /v1/deals/:id (docs.followupboss.com/reference/people-id-delete,
// deals-id-delete; deals-get for `status` and `includeDeleted`) and the peopleDeleted / dealsDeleted
// webhooks (webhooks-guide), over real HTTP.
describe('Follow Up Boss emulator deletes', () => {
  let fub: FollowUpBossEmulator;
  let receiver: WebhookReceiver;
  let receiverUrl: string;
  let received: WebhookReceiver['received'];
  const api = (method: string, path: string, body?: unknown) => fubApi(fub, method, path, body);
  const control = (method: string, path: string, body?: unknown) => fubControl(fub, method, path, body);
  const settled = (count: number) => settledDeliveries(fub, count);

  async function stageId(): Promise<number> {
    const pipelines = (await api('GET', '/pipelines')).body.pipelines as { stages: { id: number }[] }[];
    return pipelines[0].stages[0].id;
  }

  beforeAll(async () => {
    fub = await startFollowUpBossEmulator({ port: 0, webhooks: { retryBaseMs: 20, timeoutMs: 300 } });
    receiver = await startWebhookReceiver();
    receiverUrl = receiver.url;
    received = receiver.received;
  });

  afterAll(async () => {
    await fub.close();
    await receiver.close();
  });

  beforeEach(async () => {
    await control('POST', 'reset');
    received.length = 0;
  });

  it('deletes a person: 204 without a body, then 404 { errorMessage } to reads, updates and a second delete', async () => {
    const person = await api('POST', '/people', { firstName: 'Pat', lastName: 'Morgan' });
    const id = String(person.body.id);
    const deleted = await api('DELETE', `/people/${id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect(deleted.headers.get('x-ratelimit-context')).toBe('global');
    const read = await api('GET', `/people/${id}`);
    expect(read.status).toBe(404);
    expect(read.body).toEqual({ errorMessage: `Person ${id} not found` });
    expect((await api('PUT', `/people/${id}`, { lastName: 'X' })).status).toBe(404);
    expect((await api('DELETE', `/people/${id}`)).status).toBe(404);
    expect((await api('DELETE', '/people/abc')).status).toBe(400);
    expect(fub.state.count('people')).toBe(0);
  });

  it('a deleted person leaves the deals that named them', async () => {
    const person = await api('POST', '/people', { firstName: 'Pat', lastName: 'Morgan' });
    const deal = await api('POST', '/deals', {
      name: 'D',
      stageId: await stageId(),
      peopleIds: [person.body.id],
    });
    await api('DELETE', `/people/${String(person.body.id)}`);
    expect((await api('GET', `/deals/${String(deal.body.id)}`)).body.people).toEqual([]);
  });

  it('deletes a deal: 204, kept with status Deleted, listed only with includeDeleted=1 or status=Deleted', async () => {
    const stage = await stageId();
    const kept = await api('POST', '/deals', { name: 'Kept', stageId: stage });
    const gone = await api('POST', '/deals', { name: 'Gone', stageId: stage });
    const id = String(gone.body.id);
    const deleted = await api('DELETE', `/deals/${id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');

    const read = await api('GET', `/deals/${id}`);
    expect(read.status).toBe(200);
    expect(read.body.status).toBe('Deleted');
    const names = async (query: string): Promise<string[]> =>
      ((await api('GET', `/deals${query}`)).body.deals as { name: string }[]).map((d) => d.name);
    expect(await names('')).toEqual(['Kept']);
    expect(await names('?includeDeleted=1')).toEqual(['Gone', 'Kept']);
    expect(await names('?status=Deleted')).toEqual(['Gone']);
    expect(await names('?status=Active')).toEqual(['Kept']);
    expect((await api('GET', `/deals/${String(kept.body.id)}`)).body.status).toBe('Active');

    const again = await api('DELETE', `/deals/${id}`);
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ errorMessage: `Deal ${id} not found` });
    expect((await api('DELETE', '/deals/99999')).status).toBe(404);
  });

  it('delivers peopleDeleted and dealsDeleted like the other events, signed, with the ids deleted', async () => {
    await api('POST', '/webhooks', { event: 'peopleDeleted', url: receiverUrl });
    await api('POST', '/webhooks', { event: 'dealsDeleted', url: receiverUrl });
    const person = await api('POST', '/people', { firstName: 'Ann', lastName: 'Lee' });
    const deal = await api('POST', '/deals', { name: 'D', stageId: await stageId() });
    await api('DELETE', `/people/${String(person.body.id)}`);
    await api('DELETE', `/deals/${String(deal.body.id)}`);
    // Two calls, two deliveries under way at once: compared in event order.
    const byEvent = <T extends { event: unknown }>(items: T[]): T[] =>
      [...items].sort((a, b) => String(a.event).localeCompare(String(b.event)));
    const deliveries = byEvent(await settled(2));
    expect(deliveries.map((d) => [d.event, d.resourceIds, d.outcome])).toEqual([
      ['dealsDeleted', [deal.body.id], 200],
      ['peopleDeleted', [person.body.id], 200],
    ]);
    const payloads = received.map(({ body, signature }) => {
      const hmac = createHmac('sha256', fub.systemKey).update(Buffer.from(body).toString('base64'));
      expect(signature).toBe(hmac.digest('hex'));
      return JSON.parse(body) as { event: string } & Record<string, unknown>;
    });
    expect(byEvent(payloads)).toEqual([
      {
        eventId: expect.any(String),
        eventCreated: expect.any(String),
        event: 'dealsDeleted',
        resourceIds: [deal.body.id],
        uri: `${fub.url}/v1/deals?id=${String(deal.body.id)}`,
      },
      {
        eventId: expect.any(String),
        eventCreated: expect.any(String),
        event: 'peopleDeleted',
        resourceIds: [person.body.id],
        uri: `${fub.url}/v1/people?id=${String(person.body.id)}`,
      },
    ]);
  });

  it('a delete is an API call like the others: rate limited, faulted and in the request log', async () => {
    const person = await api('POST', '/people', { firstName: 'A' });
    await control('PUT', 'faults', { burst429: 1 });
    const limited = await api('DELETE', `/people/${String(person.body.id)}`);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('1');
    expect((await api('DELETE', `/people/${String(person.body.id)}`)).status).toBe(204);
    const log = (await control('GET', 'log')) as { method: string; status: number }[];
    expect(log.filter((l) => l.method === 'DELETE').map((l) => l.status)).toEqual([429, 204]);
  });
});

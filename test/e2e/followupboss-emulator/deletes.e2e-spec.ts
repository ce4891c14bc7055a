import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  startFollowUpBossEmulator,
  type DeliveryAttempt,
  type FollowUpBossEmulator,
} from '../../../sandbox/followupboss';

// DELETE /v1/people/:id and /v1/deals/:id (docs.followupboss.com/reference/people-id-delete,
// deals-id-delete; deals-get for `status` and `includeDeleted`) and the peopleDeleted / dealsDeleted
// webhooks (webhooks-guide), over real HTTP.
describe('Follow Up Boss emulator deletes', () => {
  let fub: FollowUpBossEmulator;
  let receiver: Server;
  let receiverUrl: string;
  const received: { body: string; signature: string | undefined }[] = [];

  async function api(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; text: string; body: Record<string, unknown>; headers: Headers }> {
    const res = await fetch(`${fub.url}/v1${path}`, {
      method,
      headers: {
        authorization: `Basic ${Buffer.from(`${fub.apiKey}:`).toString('base64')}`,
        'content-type': 'application/json',
        'X-System': fub.system,
        'X-System-Key': fub.systemKey,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return {
      status: res.status,
      text,
      body: (text ? JSON.parse(text) : {}) as Record<string, unknown>,
      headers: res.headers,
    };
  }

  const control = async (method: string, path: string, body?: unknown): Promise<unknown> => {
    const res = await fetch(`${fub.url}/__control/${path}`, {
      method,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return res.json();
  };

  async function settled(count: number): Promise<DeliveryAttempt[]> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const log = (await control('GET', 'webhooks/deliveries')) as {
        pending: number;
        deliveries: DeliveryAttempt[];
      };
      if (log.pending === 0 && log.deliveries.length >= count) return log.deliveries;
      if (Date.now() > deadline) throw new Error('webhook deliveries did not settle before the deadline');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  async function stageId(): Promise<number> {
    const pipelines = (await api('GET', '/pipelines')).body.pipelines as { stages: { id: number }[] }[];
    return pipelines[0].stages[0].id;
  }

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
        res.writeHead(200).end();
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

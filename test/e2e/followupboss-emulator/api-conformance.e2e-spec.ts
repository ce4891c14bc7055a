import { startFollowUpBossEmulator, type FollowUpBossEmulator } from '../../../sandbox/followupboss';

// The emulator against FUB's published behaviour (shared/reference/crm-apis.md B, B6), over real HTTP.
describe('Follow Up Boss emulator conformance', () => {
  let fub: FollowUpBossEmulator;

  const headers = (
    key = fub.apiKey,
    system: Record<string, string> | null = null,
  ): Record<string, string> => ({
    authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}`,
    'content-type': 'application/json',
    ...(system ?? { 'X-System': fub.system, 'X-System-Key': fub.systemKey }),
  });

  async function api(
    method: string,
    path: string,
    body?: unknown,
    h: Record<string, string> = headers(),
  ): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
    const res = await fetch(`${fub.url}/v1${path}`, {
      method,
      headers: h,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return {
      status: res.status,
      body: (text ? JSON.parse(text) : {}) as Record<string, unknown>,
      headers: res.headers,
    };
  }

  const control = (method: string, path: string, body?: unknown): Promise<Response> =>
    fetch(`${fub.url}/__control/${path}`, {
      method,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  beforeAll(async () => {
    fub = await startFollowUpBossEmulator({ port: 0 });
  });

  afterAll(async () => {
    await fub.close();
  });

  beforeEach(async () => {
    await control('POST', 'reset');
  });

  it('HTTP Basic with the API key as user name; anything else is 401 with { errorMessage }', async () => {
    expect((await api('GET', '/people')).status).toBe(200);
    const wrong = await api('GET', '/people', undefined, headers('nope'));
    expect(wrong.status).toBe(401);
    expect(typeof wrong.body.errorMessage).toBe('string');
    const none = await fetch(`${fub.url}/v1/people`);
    expect(none.status).toBe(401);
  });

  it('rate-limit headers on every answer; a registered system gets 250 per 10 s, without its key 125', async () => {
    const registered = await api('GET', '/pipelines');
    expect(registered.headers.get('x-ratelimit-limit')).toBe('250');
    expect(registered.headers.get('x-ratelimit-window')).toBe('10');
    expect(registered.headers.get('x-ratelimit-context')).toBe('global');
    expect(Number(registered.headers.get('x-ratelimit-remaining'))).toBe(249);
    const unregistered = await api('GET', '/pipelines', undefined, headers(fub.apiKey, { 'X-System': 'x' }));
    expect(unregistered.headers.get('x-ratelimit-limit')).toBe('125');
  });

  it('over the limit: 429, Retry-After in seconds, { errorMessage }', async () => {
    await control('PUT', 'settings', { rateLimit: { max: 3, windowMs: 2000 } });
    for (let i = 0; i < 3; i++) expect((await api('GET', '/pipelines')).status).toBe(200);
    const limited = await api('GET', '/pipelines');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(typeof limited.body.errorMessage).toBe('string');
  });

  it('pages with limit (default 10, max 100), offset, newest id first, _metadata and a next cursor', async () => {
    const created = await control('POST', 'seed/deals', { count: 25, fields: { name: 'D{i}', stageId: 1 } });
    expect(created.status).toBe(201);
    const first = await api('GET', '/deals');
    const meta = first.body._metadata as Record<string, unknown>;
    expect(meta).toMatchObject({ collection: 'deals', offset: 0, limit: 10, total: 25 });
    const ids = (first.body.deals as { id: number }[]).map((d) => d.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    const seen = new Set(ids);
    let next = meta.next as string | null;
    while (next) {
      const page = await api('GET', `/deals?next=${next}&limit=10`);
      for (const d of page.body.deals as { id: number }[]) seen.add(d.id);
      next = (page.body._metadata as { next: string | null }).next;
    }
    expect(seen.size).toBe(25);
    expect((await api('GET', '/deals?limit=101')).status).toBe(400);
    const deep = await api('GET', '/deals?offset=5000');
    expect(deep.status).toBe(400);
    expect(deep.body.errorMessage).toContain('next');
  });

  it('custom fields are named after their label and shown on people only with fields=allFields', async () => {
    const field = await api('POST', '/customFields', { label: 'Close Date', type: 'date' });
    expect(field.status).toBe(201);
    expect(field.body).toMatchObject({ name: 'customCloseDate', label: 'Close Date', type: 'date' });
    const dup = await api('POST', '/customFields', { label: 'Close Date', type: 'date' });
    expect(dup.status).toBe(400);
    const person = await api('POST', '/people', {
      firstName: 'Pat',
      lastName: 'Morgan',
      emails: [{ value: 'pat@example.com' }],
      customCloseDate: '2026-12-01',
    });
    expect(person.status).toBe(201);
    const plain = await api('GET', `/people/${String(person.body.id)}`);
    expect(plain.body).not.toHaveProperty('customCloseDate');
    const all = await api('GET', `/people/${String(person.body.id)}?fields=allFields`);
    expect(all.body.customCloseDate).toBe('2026-12-01');
    expect((await api('PUT', `/people/${String(person.body.id)}`, { customNope: 'x' })).status).toBe(400);
    const list = await api('GET', '/customFields');
    expect(list.body).toHaveProperty('customfields');
  });

  it('deals need a name and a stage; the stage decides the pipeline; people are linked by id', async () => {
    expect((await api('POST', '/deals', { name: 'No stage' })).status).toBe(400);
    const pipelines = (await api('GET', '/pipelines')).body.pipelines as {
      id: number;
      stages: { id: number }[];
    }[];
    const sellers = pipelines[1];
    const person = await api('POST', '/people', { firstName: 'Pat', lastName: 'Morgan' });
    const deal = await api('POST', '/deals', {
      name: 'Listing',
      stageId: sellers.stages[2].id,
      pipelineId: 999,
      price: 425000,
      peopleIds: [person.body.id],
    });
    expect(deal.status).toBe(201);
    expect(deal.body).toMatchObject({ pipelineId: sellers.id, stageId: sellers.stages[2].id, price: 425000 });
    expect(deal.body.people).toEqual([{ id: person.body.id, name: 'Pat Morgan' }]);
    const byPerson = await api('GET', `/deals?personId=${String(person.body.id)}`);
    expect((byPerson.body.deals as unknown[]).length).toBe(1);
    const updated = await api('PUT', `/deals/${String(deal.body.id)}`, { price: 'lots' });
    expect(updated.status).toBe(400);
    expect((await api('GET', '/deals/99999')).status).toBe(404);
  });

  it('the control log keeps every write with its body and caller, reads apart', async () => {
    const pipelines = (await api('GET', '/pipelines')).body.pipelines as { stages: { id: number }[] }[];
    const made = await api('POST', '/deals', { name: 'Listing', stageId: pipelines[1].stages[0].id });
    const agent = headers(fub.apiKey, {});
    await api('PUT', `/deals/${String(made.body.id)}`, { price: 410000 }, agent);
    await api('PUT', `/deals/${String(made.body.id)}`, { price: 'lots' });
    const writes = (await (await control('GET', 'writes')).json()) as Record<string, unknown>[];
    expect(writes).toEqual([
      expect.objectContaining({ method: 'POST', path: '/v1/deals', status: 201, system: fub.system }),
      expect.objectContaining({ method: 'PUT', status: 200, system: null, body: { price: 410000 } }),
      expect.objectContaining({ method: 'PUT', status: 400, system: fub.system, body: { price: 'lots' } }),
    ]);
    expect(writes[0].body).toMatchObject({ name: 'Listing' });
    const log = (await (await control('GET', 'log')).json()) as Record<string, unknown>[];
    expect(log.map((e) => e.method)).toEqual(['GET', 'POST', 'PUT', 'PUT']);
    expect(log.every((e) => !('body' in e))).toBe(true);
  });

  it('pipelines are created with named stages; a stage without a name is refused as FUB words it', async () => {
    const bad = await api('POST', '/pipelines', { name: 'Test', stages: [{ color: '#fff' }] });
    expect(bad.status).toBe(400);
    expect(bad.body.errorMessage).toBe('name is a required field for each stage object');
    const good = await api('POST', '/pipelines', { name: 'Test', stages: [{ name: 'Listed' }] });
    expect(good.status).toBe(201);
    expect((good.body.stages as { name: string }[]).map((s) => s.name)).toEqual(['Listed']);
  });

  it('notes need a person; updatedAfter filters by update time', async () => {
    expect((await api('POST', '/notes', { body: 'x' })).status).toBe(400);
    const person = await api('POST', '/people', { firstName: 'A', lastName: 'B' });
    expect((await api('POST', '/notes', { personId: person.body.id, body: 'hello' })).status).toBe(201);
    await control('PUT', 'settings', { advanceClockMs: 60_000 });
    const cut = new Date(Date.now() + 30_000).toISOString();
    await api('PUT', `/people/${String(person.body.id)}`, { lastName: 'C' });
    await api('POST', '/people', { firstName: 'Old', lastName: 'One' });
    const changed = await api('GET', `/people?updatedAfter=${cut}&sort=updated`);
    expect((changed.body.people as { lastName: string }[]).map((p) => p.lastName)).toEqual(['C', 'One']);
  });

  it('fault injection through /__control: a burst of 429s, then errors at a rate', async () => {
    await control('PUT', 'faults', { burst429: 1 });
    const limited = await api('GET', '/people');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('1');
    expect((await api('GET', '/people')).status).toBe(200);
    await control('PUT', 'faults', { errorRate: 1, errorStatus: 503 });
    const failed = await api('GET', '/people');
    expect(failed.status).toBe(503);
    expect(failed.body).toEqual({ errorMessage: 'Injected fault' });
    await control('DELETE', 'faults');
    const log = (await (await control('GET', 'log')).json()) as { status: number }[];
    expect(log.map((l) => l.status)).toEqual([429, 200, 503]);

    // Only on the calls `match` names: the reads around a create pass, the create meets the 429.
    await control('PUT', 'faults', { burst429: 1, match: 'POST /tasks' });
    expect((await api('GET', '/people')).status).toBe(200);
    expect((await api('POST', '/tasks', { name: 'Call back' })).status).toBe(429);
    expect((await control('PUT', 'faults', { match: 7 })).status).toBe(400);
    await control('DELETE', 'faults');
  });
});

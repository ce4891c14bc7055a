import type { ServerResponse } from 'node:http';
import { waitFor } from '../../test/support/wait-for';
import { ManualClock } from '../common/clock';
import { CashOfferClient, type ClientLogger } from './cash-offer.client';
import { CashOfferError } from './cash-offer.error';
import { CashOfferCallEvent, CashOfferClientOptions } from './cash-offer-client.options';
import { FakeService, json } from './fake-service.testing';

const KEY = 'unit-secret-key-7f3a';
const validCreate = {
  request: { offer_request_asking: 250000 },
  property: {
    StreetNumber: '12',
    StreetName: 'Elm Street',
    PostalCity: 'Austin',
    StateOrProvince: 'TX',
    PostalCode: '78701',
    MlsStatus: 'Active',
  },
};

describe('CashOfferClient (against a scripted HTTP server)', () => {
  const service = new FakeService();
  let baseUrl: string;
  let client: CashOfferClient;
  let calls: CashOfferCallEvent[];

  const quiet = { log: () => undefined, warn: () => undefined, error: () => undefined };
  const build = (extra: Partial<CashOfferClientOptions> = {}, logger: ClientLogger = quiet) => {
    client?.close();
    calls = [];
    client = new CashOfferClient(
      {
        brokerageId: 'b1',
        baseUrl,
        apiKey: KEY,
        timeoutMs: 2000,
        rateLimit: { max: 1000, intervalMs: 1000 },
        retry: { maxAttempts: 3, maxRateLimitedAttempts: 5, baseDelayMs: 5, maxDelayMs: 20 },
        onCall: (e) => calls.push(e),
        ...extra,
      },
      new ManualClock(),
      logger,
    );
  };

  beforeAll(async () => {
    baseUrl = await service.start();
  });
  beforeEach(() => {
    service.seen.length = 0;
    build();
  });
  afterAll(async () => {
    client.close();
    await service.stop();
  });

  it('refuses an invalid record locally, naming the field, and sends nothing', async () => {
    const body = { ...validCreate, property: { ...validCreate.property, StreetName: 'x'.repeat(57) } };
    const error = (await client.createOfferRequest(body).catch((e: unknown) => e)) as CashOfferError;
    expect(error).toBeInstanceOf(CashOfferError);
    expect(error.code).toBe('INVALID_RECORD');
    expect(error.message).toContain('property.StreetName is 57 characters; the service allows 50');
    expect(error.violations).toEqual([
      {
        field: 'property.StreetName',
        message: 'property.StreetName is 57 characters; the service allows 50',
      },
    ]);
    expect(service.seen).toHaveLength(0);
  });

  it('sends the key as Authorization and the body as JSON; returns the record', async () => {
    service.handler = (_r, res) => json(res, 201, { offer_request_id: 7, offer_request_status: 'in_review' });
    const record = await client.createOfferRequest(validCreate);
    expect(record).toEqual({ offer_request_id: 7, offer_request_status: 'in_review' });
    expect(service.seen[0]).toMatchObject({ method: 'POST', url: '/api/v2/offer-requests', auth: KEY });
    expect(JSON.parse(service.seen[0].body)).toEqual(validCreate);
    expect(calls).toEqual([
      expect.objectContaining({
        brokerageId: 'b1',
        operation: 'POST /offer-requests',
        status: 201,
        attempt: 1,
      }),
    ]);
  });

  it('accepts any 2xx and an empty body', async () => {
    service.handler = (_r, res) => res.writeHead(202).end();
    await expect(client.decideOffer(3, 'accepted')).resolves.toBeUndefined();
    await expect(client.updateOfferRequest(9, { media: ['https://x.test/a.jpg'] })).resolves.toBeUndefined();
    expect(service.seen.map((s) => `${s.method} ${s.url}`)).toEqual([
      'PATCH /api/v2/offers',
      'PATCH /api/v2/offer-requests/9',
    ]);
  });

  it('copes with a base URL ending in a slash and keeps unknown status values', async () => {
    build({ baseUrl: `${baseUrl}/` });
    service.handler = (_r, res) => json(res, 200, [{ offer_id: 1, offer_status: 'withdrawn_by_buyer' }]);
    const offers = await client.listOffers({ offer_request_id: 4 });
    expect(offers[0].offer_status).toBe('withdrawn_by_buyer');
    expect(service.seen[0].url).toBe('/api/v2/offers?offer_request_id=4');
  });

  it('finishes the calls of a run that still holds it once retired, and frees its connections when idle', async () => {
    let answer: (() => void) | undefined;
    const held = new Promise<void>((resolve) => (answer = resolve));
    service.handler = (_r, res, n) =>
      n === 1 ? void held.then(() => json(res, 200, [])) : json(res, 200, []);
    const inFlight = client.listActiveOfferRequests({ limit: 5 });
    await waitFor(() => service.seen.length === 1, { what: 'the call to arrive' });
    // The brokerage's config changed while the call was out.
    client.retire();
    answer!();
    await expect(inFlight).resolves.toEqual([]);
    const connections = service.connections;
    // The run goes on with the client it took: its next call is served, on a new connection (the
    // old one was freed when the first call ended).
    await expect(client.listActiveOfferRequests({ limit: 5 })).resolves.toEqual([]);
    expect(service.connections).toBe(connections + 1);
    expect(calls.map((c) => c.status)).toEqual([200, 200]);
  });

  it('retries a 5xx on a GET and succeeds', async () => {
    service.handler = (_r, res, n) =>
      n < 3 ? json(res, 503, { error: 503, message: 'busy' }) : json(res, 200, []);
    await expect(client.listActiveOfferRequests({ limit: 5 })).resolves.toEqual([]);
    expect(calls.map((c) => [c.status, c.attempt])).toEqual([
      [503, 1],
      [503, 2],
      [200, 3],
    ]);
  });

  it('never retries a create that failed with a 5xx: OUTCOME_UNKNOWN', async () => {
    service.handler = (_r, res) => json(res, 500, { error: 500, message: 'boom' });
    await expect(client.createOfferRequest(validCreate)).rejects.toMatchObject({
      code: 'OUTCOME_UNKNOWN',
      status: 500,
      retryable: false,
      serviceError: { error: 500, message: 'boom' },
    });
    expect(service.seen).toHaveLength(1);
  });

  it('retries a 429 on a create after the Retry-After it was given', async () => {
    service.handler = (_r, res, n) =>
      n === 1
        ? json(res, 429, { error: 429, message: 'slow down' }, { 'retry-after': '1' })
        : json(res, 201, {});
    await client.submitBuyerLead({
      first_name: 'A',
      last_name: 'B',
      primary_email: 'a@b.co',
      property_address: { offer_request_id: 1 },
    });
    expect(service.seen).toHaveLength(2);
    expect(service.seen[1].at - service.seen[0].at).toBeGreaterThanOrEqual(990);
  });

  it('reports RATE_LIMITED once its own attempts run out, more of them than a 5xx gets', async () => {
    service.handler = (_r, res) =>
      json(res, 429, { error: 429, message: 'slow down' }, { 'retry-after': '0' });
    await expect(client.listOffers()).rejects.toMatchObject({
      code: 'RATE_LIMITED',
      status: 429,
      retryable: true,
    });
    expect(service.seen).toHaveLength(5);

    service.seen.length = 0;
    service.handler = (_r, res) => json(res, 503, { error: 503, message: 'down' });
    await expect(client.listOffers()).rejects.toMatchObject({ code: 'UNAVAILABLE', status: 503 });
    expect(service.seen).toHaveLength(3);
  });

  it('tells a reader of offers when each try of its request leaves', async () => {
    let tries = 0;
    service.handler = (_r, res) =>
      ++tries === 1 ? json(res, 503, { error: 503, message: 'busy' }) : json(res, 200, []);
    const sent: number[] = [];
    await client.listOffers({ offer_request_id: 3 }, { beforeSend: async () => void sent.push(tries) });
    // Before the first try (none seen yet) and before the second (one seen).
    expect(sent).toEqual([0, 1]);
  });

  it('slows the key down after a 429 that names no wait, says so once, and keeps to the slower pace', async () => {
    const warnings: string[] = [];
    build(
      { rateLimit: { max: 4, intervalMs: 1000 } },
      { ...quiet, warn: (message: string) => void warnings.push(message) },
    );
    // The first call is refused, with no Retry-After; every other one is answered.
    let refused = false;
    service.handler = (_r, res) => {
      if (refused) return json(res, 200, []);
      refused = true;
      json(res, 429, { error: 429, message: 'slow down' });
    };
    await Promise.all([client.listOffers(), client.listOffers(), client.listOffers(), client.listOffers()]);
    const slowed = warnings.filter((w) => w.includes('over its rate limit'));
    expect(slowed).toEqual([
      "brokerage b1: the service refused GET /offers as over its rate limit (429); this key's calls slowed from 4 to 2 per 1000 ms, one more every 5 s without a refusal",
    ]);
    // Now two calls a window: four more calls take two windows.
    service.seen.length = 0;
    await Promise.all([client.listOffers(), client.listOffers(), client.listOffers(), client.listOffers()]);
    const times = service.seen.map((r) => r.at).sort((a, b) => a - b);
    expect(times[2] - times[0]).toBeGreaterThanOrEqual(990);
  });

  it('does not wait out a Retry-After longer than allowed', async () => {
    service.handler = (_r, res) =>
      json(res, 429, { error: 429, message: 'later' }, { 'retry-after': '3600' });
    await expect(client.listOffers()).rejects.toMatchObject({
      code: 'RATE_LIMITED',
      retryAfterMs: 3_600_000,
    });
    expect(service.seen).toHaveLength(1);
  });

  it.each([
    [401, 'AUTH_FAILED'],
    [403, 'AUTH_FAILED'],
    [404, 'NOT_FOUND'],
    [409, 'CONFLICT'],
    [400, 'INVALID_RECORD'],
  ])('maps %i to %s without retrying', async (status, code) => {
    service.handler = (_r, res) => json(res, status, { error: status, message: 'no' });
    await expect(client.registerWebhook('https://hooks.test/x')).rejects.toMatchObject({ code, status });
    // A 401 or 403 is also tried with the key written the other way (below), within the one attempt.
    const sent = status === 401 || status === 403 ? 2 : 1;
    expect(service.seen).toHaveLength(sent);
    expect(calls.map((c) => c.attempt)).toEqual([1]);
  });

  describe('how the Authorization header carries the key (the spec shows no prefix)', () => {
    const bearerOnly = (res: ServerResponse, auth: string | undefined, body: unknown) =>
      auth === `Bearer ${KEY}`
        ? json(res, 200, body)
        : json(res, 401, { error: 401, message: 'the Authorization header must be "Bearer <API key>"' });

    it('sends the key alone first; when the service refuses it, sends it as "Bearer <key>" once, and keeps that', async () => {
      const logged: string[] = [];
      build({}, { ...quiet, log: (m: string) => logged.push(m) });
      service.handler = (r, res) => bearerOnly(res, r.auth, { offer_request_id: 7 });
      await expect(client.createOfferRequest(validCreate)).resolves.toEqual({ offer_request_id: 7 });
      await expect(client.decideOffer(3, 'accepted')).resolves.toEqual({ offer_request_id: 7 });
      expect(service.seen.map((s) => `${s.method} ${s.auth}`)).toEqual([
        `POST ${KEY}`,
        `POST Bearer ${KEY}`,
        `PATCH Bearer ${KEY}`,
      ]);
      expect(calls.map((c) => c.status)).toEqual([200, 200]);
      expect(logged.join('\n')).toContain(
        'refused the API key written as the key alone and took it written "Bearer <key>"',
      );
      expect(logged.join('\n')).not.toContain(KEY);
    });

    it('a key configured as "Bearer <key>" is tried alone when the service refuses the prefix', async () => {
      build({ apiKey: `Bearer ${KEY}` });
      service.handler = (r, res) =>
        r.auth === KEY ? json(res, 200, []) : json(res, 401, { error: 401, message: 'unknown API key' });
      await expect(client.listOffers()).resolves.toEqual([]);
      await expect(client.listOffers()).resolves.toEqual([]);
      expect(service.seen.map((s) => s.auth)).toEqual([`Bearer ${KEY}`, KEY, KEY]);
    });

    it('a key refused both ways answers with the first refusal, each call', async () => {
      service.handler = (_r, res) => json(res, 401, { error: 401, message: 'the API key is not valid' });
      await expect(client.createOfferRequest(validCreate)).rejects.toMatchObject({
        code: 'AUTH_FAILED',
        keyRefused: true,
        serviceError: { message: 'the API key is not valid' },
      });
      await expect(client.listOffers()).rejects.toMatchObject({ code: 'AUTH_FAILED' });
      expect(service.seen.map((s) => s.auth)).toEqual([KEY, `Bearer ${KEY}`, KEY, `Bearer ${KEY}`]);
    });

    it('a call refused as written while another call learnt the other form still tries the form it did not send', async () => {
      // The first call's refusal is held until the second call has been refused and taken as
      // "Bearer <key>": the first must still try the prefix, not the form it already sent.
      let releaseFirst: (() => void) | undefined;
      service.handler = (r, res, n) => {
        if (r.auth === `Bearer ${KEY}`) {
          json(res, 200, []);
          // Once: the first call's own retry comes here too.
          const release = releaseFirst;
          releaseFirst = undefined;
          release?.();
          return;
        }
        const refuse = () =>
          json(res, 401, { error: 401, message: 'the Authorization header must be "Bearer <API key>"' });
        if (n === 1) releaseFirst = refuse;
        else refuse();
      };
      const first = client.listOffers();
      await waitFor(() => service.seen.length >= 1, { what: 'the first call at the service' });
      const second = client.listOffers();
      await expect(Promise.all([first, second])).resolves.toEqual([[], []]);
      expect(service.seen.map((s) => s.auth)).toEqual([KEY, KEY, `Bearer ${KEY}`, `Bearer ${KEY}`]);
    });

    it('a service that starts wanting the prefix later (a gateway put in front) is followed', async () => {
      let gateway = false;
      service.handler = (r, res) =>
        gateway ? bearerOnly(res, r.auth, []) : json(res, r.auth === KEY ? 200 : 401, []);
      await expect(client.listOffers()).resolves.toEqual([]);
      gateway = true;
      await expect(client.listOffers()).resolves.toEqual([]);
      await expect(client.listOffers()).resolves.toEqual([]);
      expect(service.seen.map((s) => s.auth)).toEqual([KEY, KEY, `Bearer ${KEY}`, `Bearer ${KEY}`]);
    });

    it('a 400 that speaks of the key is tried the other way; a 400 about the record is not', async () => {
      service.handler = (r, res) =>
        r.auth === KEY
          ? json(res, 400, { error: 400, message: 'Authorization header: API key format not recognised' })
          : json(res, 400, { error: 400, message: 'offer_id is required' });
      await expect(client.decideOffer(3, 'accepted')).rejects.toMatchObject({
        code: 'INVALID_RECORD',
        serviceError: { message: 'offer_id is required' },
      });
      expect(service.seen).toHaveLength(2);
      await expect(client.decideOffer(3, 'accepted')).rejects.toMatchObject({ code: 'INVALID_RECORD' });
      expect(service.seen.map((s) => s.auth)).toEqual([KEY, `Bearer ${KEY}`, `Bearer ${KEY}`]);
    });
  });

  it('retries a refused connection, even for a create', async () => {
    const closed = new FakeService();
    const url = await closed.start();
    await closed.stop();
    build({ baseUrl: url });
    await expect(client.createOfferRequest(validCreate)).rejects.toMatchObject({
      code: 'UNAVAILABLE',
      networkCode: 'ECONNREFUSED',
    });
    expect(calls.map((c) => c.status)).toEqual(['network_error', 'network_error', 'network_error']);
  });

  it('does not follow a redirect, so the key never reaches another host', async () => {
    const elsewhere = new FakeService();
    const elsewhereUrl = await elsewhere.start();
    try {
      service.handler = (_r, res) => res.writeHead(302, { location: `${elsewhereUrl}/offers` }).end();
      await expect(client.listOffers()).rejects.toMatchObject({ code: 'UNAVAILABLE', status: 302 });
      expect(elsewhere.seen).toHaveLength(0);
    } finally {
      await elsewhere.stop();
    }
  });

  it('ignores proxies named in the environment', async () => {
    const proxy = new FakeService();
    const proxyUrl = (await proxy.start()).replace('/api/v2', '');
    const saved = { HTTP_PROXY: process.env.HTTP_PROXY, http_proxy: process.env.http_proxy };
    process.env.HTTP_PROXY = process.env.http_proxy = proxyUrl;
    try {
      build();
      service.handler = (_r, res) => json(res, 200, []);
      await expect(client.listOffers()).resolves.toEqual([]);
      expect(proxy.seen).toHaveLength(0);
      expect(service.seen).toHaveLength(1);
    } finally {
      for (const [name, value] of Object.entries(saved))
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      await proxy.stop();
    }
  });

  it('makes a create whose connection dropped before the answer OUTCOME_UNKNOWN, sent once', async () => {
    service.handler = (_r, res) => res.socket?.destroy();
    await expect(client.createOfferRequest(validCreate)).rejects.toMatchObject({
      code: 'OUTCOME_UNKNOWN',
      networkCode: 'ECONNRESET',
      message: expect.stringContaining('the connection was dropped') as unknown,
    });
    expect(service.seen).toHaveLength(1);
  });

  it('retries a GET whose connection dropped', async () => {
    service.handler = (_r, res, n) => (n === 1 ? res.socket?.destroy() : json(res, 200, []));
    await expect(client.listOffers()).resolves.toEqual([]);
    expect(calls.map((c) => c.status)).toEqual(['network_error', 200]);
  });

  it('streams pages, each asked from the last item of the one before, until that item alone', async () => {
    service.handler = (req, res) => {
      const offset = Number(new URL(req.url, 'http://x').searchParams.get('offset'));
      const total = 7;
      const items = Array.from({ length: Math.max(0, Math.min(3, total - offset)) }, (_, i) => ({
        request: { offer_request_asking: 1, offer_request_id: offset + i + 1 },
        property: {},
        media: [],
      }));
      json(res, 200, items);
    };
    const sizes: number[] = [];
    for await (const page of client.streamActiveOfferRequests({ pageSize: 3 })) sizes.push(page.length);
    // Each listing given once: 1-3, then 4-5 and 6-7 from pages that repeat the item before them.
    expect(sizes).toEqual([3, 2, 2]);
    expect(service.seen.map((s) => s.url)).toEqual([
      '/api/v2/active-offer-requests?limit=3&offset=0',
      '/api/v2/active-offer-requests?limit=3&offset=2',
      '/api/v2/active-offer-requests?limit=3&offset=4',
      '/api/v2/active-offer-requests?limit=3&offset=6',
    ]);
  });

  it('reads past a short page: a service that caps `limit` is read to its end', async () => {
    service.handler = (req, res) => {
      const offset = Number(new URL(req.url, 'http://x').searchParams.get('offset'));
      const total = 40;
      // Asked for 100, the service gives 25 at most.
      const items = Array.from({ length: Math.max(0, Math.min(25, total - offset)) }, (_, i) => ({
        request: { offer_request_asking: 1, offer_request_id: offset + i + 1 },
        property: {},
        media: [],
      }));
      json(res, 200, items);
    };
    const ids: number[] = [];
    for await (const page of client.streamActiveOfferRequests({ pageSize: 100 }))
      ids.push(...page.map((p) => Number(p.request.offer_request_id)));
    expect(ids).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
  });

  // A service that ignores offset answers every page with the same items.
  const expectOffsetIgnoredCaught = async (items: object[]) => {
    service.handler = (_r, res) => json(res, 200, items);
    const pages: number[] = [];
    const error = await (async () => {
      for await (const page of client.streamActiveOfferRequests({ pageSize: 2 })) {
        pages.push(page.length);
        if (pages.length > 3) break;
      }
    })().catch((e: unknown) => e);
    expect(pages).toEqual([2]);
    expect(error).toMatchObject({ code: 'UNAVAILABLE', message: expect.stringContaining('ignore offset') });
  };

  it('stops streaming when the service ignores offset', async () => {
    await expectOffsetIgnoredCaught(
      [1, 2].map((id) => ({
        request: { offer_request_asking: 1, offer_request_id: id },
        property: {},
        media: [],
      })),
    );
  });

  // Items with only the spec's declared request object name no request: the pages themselves repeat.
  // Their media are signed afresh on every read, as the spec's 10-minute signed URLs may be.
  it('stops streaming when the service ignores offset on a list that names no request', async () => {
    await expectOffsetIgnoredCaught(
      [300_000, 410_000].map((asking) => ({
        request: { offer_request_asking: asking },
        property: {},
        get media() {
          return [`https://media.example/${asking}.jpg?signature=${Math.random()}`];
        },
      })),
    );
  });

  it("holds calls to the brokerage's rate limit: they queue, none is refused", async () => {
    build({ rateLimit: { max: 3, intervalMs: 300 } });
    service.handler = (_r, res) => json(res, 200, []);
    const lists = await Promise.all(Array.from({ length: 9 }, () => client.listOffers()));
    expect(lists).toEqual(Array.from({ length: 9 }, () => []));
    const at = service.seen.map((s) => s.at - service.seen[0].at);
    // Three per window of 300 ms (less what the first calls lost connecting); unpaced, all nine
    // would arrive within a few milliseconds.
    expect(at[3]).toBeGreaterThanOrEqual(200);
    expect(at[6]).toBeGreaterThanOrEqual(500);
  });

  it('opens the breaker after consecutive failures and fails fast', async () => {
    build({ retry: { maxAttempts: 1 }, breaker: { consecutiveFailures: 2, halfOpenAfterMs: 60_000 } });
    service.handler = (_r, res) => json(res, 500, { error: 500, message: 'down' });
    await expect(client.listOffers()).rejects.toMatchObject({ code: 'UNAVAILABLE', status: 500 });
    await expect(client.listOffers()).rejects.toMatchObject({ code: 'UNAVAILABLE', status: 500 });
    const fast = (await client.listOffers().catch((e: unknown) => e)) as CashOfferError;
    expect(fast.code).toBe('UNAVAILABLE');
    expect(fast.status).toBeUndefined();
    expect(fast.message).toContain('circuit');
    expect(service.seen).toHaveLength(2);
  });

  it('runs beforeSend only once the rate limiter lets the call go, right before it leaves', async () => {
    build({ rateLimit: { max: 1, intervalMs: 400 } });
    service.handler = (r, res) =>
      r.method === 'GET' ? json(res, 200, []) : json(res, 201, { offer_request_id: 1 });
    await client.listOffers(); // takes the window's only token
    const started = Date.now();
    let hookedAfterMs = -1;
    let seenWhenHooked = -1;
    await client.createOfferRequest(validCreate, {
      beforeSend: async () => {
        hookedAfterMs = Date.now() - started;
        seenWhenHooked = service.seen.length;
      },
    });
    // Waited for the limiter first (a crash during that wait must find the command still pending).
    expect(hookedAfterMs).toBeGreaterThanOrEqual(250);
    expect(seenWhenHooked).toBe(1);
    expect(service.seen).toHaveLength(2);
  });

  it('never runs beforeSend for a call the open breaker refuses, nor for an invalid record', async () => {
    build({ retry: { maxAttempts: 1 }, breaker: { consecutiveFailures: 1, halfOpenAfterMs: 60_000 } });
    service.handler = (_r, res) => json(res, 500, { error: 500, message: 'down' });
    await expect(client.listOffers()).rejects.toMatchObject({ status: 500 });
    let hooked = 0;
    const call = { beforeSend: async () => void (hooked += 1) };
    await expect(client.createOfferRequest(validCreate, call)).rejects.toMatchObject({
      code: 'UNAVAILABLE',
      message: expect.stringContaining('circuit'),
    });
    const invalid = { ...validCreate, property: { ...validCreate.property, StateOrProvince: 'Texas' } };
    await expect(client.createOfferRequest(invalid, call)).rejects.toMatchObject({ code: 'INVALID_RECORD' });
    expect(hooked).toBe(0);
    expect(service.seen).toHaveLength(1);
  });
});

describe('CashOfferClient timeouts', () => {
  const service = new FakeService();
  let client: CashOfferClient;

  beforeAll(async () => {
    const baseUrl = await service.start();
    service.handler = () => undefined; // never answers
    client = new CashOfferClient(
      { brokerageId: 'b2', baseUrl, apiKey: 'k', timeoutMs: 150, retry: { maxAttempts: 2, baseDelayMs: 1 } },
      new ManualClock(),
      { log: () => undefined, warn: () => undefined, error: () => undefined },
    );
  });
  afterAll(async () => {
    client.close();
    await service.stop();
  });

  it('turns a timed-out create into OUTCOME_UNKNOWN after one request', async () => {
    service.seen.length = 0;
    await expect(client.createOfferRequest(validCreate)).rejects.toMatchObject({
      code: 'OUTCOME_UNKNOWN',
      operation: 'POST /offer-requests',
      retryable: false,
    });
    expect(service.seen).toHaveLength(1);
  });

  it('retries a timed-out GET, then reports UNAVAILABLE', async () => {
    service.seen.length = 0;
    await expect(client.listOffers()).rejects.toMatchObject({ code: 'UNAVAILABLE', retryable: true });
    expect(service.seen).toHaveLength(2);
  });
});

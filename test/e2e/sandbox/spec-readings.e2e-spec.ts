import { RunningCashOfferSandbox } from '../../../sandbox/cash-offer';
import {
  AGENT,
  PARTNER,
  activeRequest,
  buyerOffer,
  call,
  control,
  createBody,
  Json,
  startTestSandbox,
} from './sandbox.helpers';

const DAY = 24 * 3600 * 1000;

// The sandbox answering each way a spec reading says (docs/sandbox.md, "Spec readings"), for the
// switches of the status codes, the create's answer, the offers list and expired offers.
describe('Cash Offer sandbox: spec readings', () => {
  let sandbox: RunningCashOfferSandbox;
  beforeAll(async () => {
    sandbox = await startTestSandbox();
  });
  afterAll(() => sandbox.close());
  beforeEach(async () => {
    await control(sandbox, 'POST', '/reset');
  });

  const readings = (body: Record<string, unknown>) => control(sandbox, 'PUT', '/spec-readings', body);
  const offerIds = (offers: Json[]): number[] => offers.map((o: { offer_id: number }) => o.offer_id);

  // JSON.parse makes `__proto__` an own key: it and `constructor` must be unknown switches (400),
  // not Object.prototype's (they answered 500).
  it('refuses keys of the object prototype as unknown switches', async () => {
    for (const text of ['{"__proto__":{"counterLapse":"never"}}', '{"constructor":"x"}', '{"toString":1}']) {
      const res = await fetch(`${sandbox.controlUrl}/spec-readings`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: text,
      });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { message: string }).message).toContain('is not a spec reading');
    }
  });

  it('refuses an unknown value of each new switch, naming the switch', async () => {
    for (const key of [
      'offersQuery',
      'offersOrder',
      'createAnswer',
      'decideAnswer',
      'updateAnswer',
      'leadAnswer',
      'errorCodes',
      'expiredOfferListedAs',
      'withdrawnOfferListedAs',
      'counterRejectedOfferListedAs',
      'webhookMethods',
      'offerNamesCounter',
      'maxMediaItems',
      'activeLimitOver',
      'activeSort',
      'pageAfterLast',
      'activeListShape',
      'trailingSlash',
      'externalIdAt',
      'counterOmittedFields',
      'updateBodyShape',
      'leadRequiredFields',
      'counterAcceptedOriginalListedAs',
      'eventDelivery',
      'counteredOfferDecisions',
      'counterAfterSellerReject',
      'rateLimit',
      'idSequences',
      'duplicateExternalId',
    ]) {
      const res = await readings({ [key]: 'nonsense' });
      expect(res.status).toBe(400);
      expect(res.body.message).toContain(key);
    }
    expect((await control(sandbox, 'GET', '/spec-readings')).body).toMatchObject({
      offersQuery: 'params',
      createAnswer: 'record-201',
      decideAnswer: 'record-200',
      updateAnswer: 'empty-204',
      leadAnswer: 'record-201',
      errorCodes: 'ours',
      expiredOfferListedAs: 'expired',
      withdrawnOfferListedAs: 'withdrawn',
      counterRejectedOfferListedAs: 'rejected',
      webhookMethods: 'post-sets',
      offerNamesCounter: 'counter_offer_id',
      maxMediaItems: 50,
      activeLimitOver: 'capped',
      activeSort: 'ours',
      pageAfterLast: 'empty',
      activeListShape: 'ours',
      trailingSlash: 'either',
    });
    for (const cap of [0, 51, 2.5, null]) expect((await readings({ maxMediaItems: cap })).status).toBe(400);
  });

  it('rateLimit: at most 5 calls a second per key, the rest 429 with or without Retry-After', async () => {
    const burst = async (key: string) =>
      Promise.all(
        Array.from({ length: 12 }, () => call(sandbox, 'GET', '/active-offer-requests', undefined, key)),
      );
    expect((await burst(AGENT.key)).map((a) => a.status)).toEqual(Array(12).fill(200));

    await readings({ rateLimit: 'per-second' });
    // Twelve calls at once fall in one or two seconds: five let through in each, the rest refused.
    const limited = await burst(AGENT.key);
    const refused = limited.filter((a) => a.status === 429);
    expect(refused.length).toBeGreaterThanOrEqual(2);
    expect(limited.filter((a) => a.status === 200).length).toBe(12 - refused.length);
    for (const answer of refused) {
      expect(answer.headers.get('retry-after')).toBe('1');
      expect(answer.body).toMatchObject({ message: expect.stringContaining('too many requests') });
    }
    // Another key has its own count.
    expect((await call(sandbox, 'GET', '/active-offer-requests', undefined, PARTNER.key)).status).toBe(200);

    await readings({ rateLimit: 'per-second-bare' });
    const bare = (await burst(AGENT.key)).filter((a) => a.status === 429);
    expect(bare.length).toBeGreaterThanOrEqual(2);
    for (const answer of bare) expect(answer.headers.get('retry-after')).toBeNull();
  });

  it('maxMediaItems: more photos in one call refused whole with 400 naming media, as many accepted', async () => {
    const photos = Array.from({ length: 12 }, (_, i) => `https://photos.example/${i}.jpg`);
    await readings({ maxMediaItems: 5 });
    const refused = await call(sandbox, 'POST', '/offer-requests', createBody({ media: photos }));
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe('media has 12 photos; the service allows 5');
    const created = await call(sandbox, 'POST', '/offer-requests', createBody({ media: photos.slice(0, 5) }));
    expect(created.status).toBe(201);
    const id = created.body.offer_request_id as number;
    const tooMany = await call(sandbox, 'PATCH', '/offer-requests/', {
      offer_request_id: id,
      media: photos.slice(5),
    });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.message).toContain('media has 7 photos');
    const byPath = await call(sandbox, 'PATCH', `/offer-requests/${id}`, { media: photos.slice(5) });
    expect(byPath.status).toBe(400);
    expect(
      (await call(sandbox, 'PATCH', '/offer-requests/', { offer_request_id: id, media: photos.slice(5, 10) }))
        .status,
    ).toBe(204);
    expect((await call(sandbox, 'PATCH', `/offer-requests/${id}`, { media: photos.slice(10) })).status).toBe(
      204,
    );
    const [stored] = (await control(sandbox, 'GET', '/offer-requests')).body as {
      media: { url: string }[];
    }[];
    expect(stored.media.map((m) => m.url)).toEqual(photos);
    // Under all-422 the refusal keeps that reading's code.
    await readings({ errorCodes: 'all-422' });
    expect((await call(sandbox, 'POST', '/offer-requests', createBody({ media: photos }))).status).toBe(422);
  });

  it('the control API moves a request to any status (a reopened request is listed again)', async () => {
    const created = await activeRequest(sandbox);
    const id = created.offer_request_id as number;
    const listed = async () =>
      ((await call(sandbox, 'GET', '/active-offer-requests?limit=100')).body as Json[]).some(
        (r: { request: { offer_request_id: number } }) => r.request.offer_request_id === id,
      );
    const moved = await control(sandbox, 'POST', `/offer-requests/${id}/status`, {
      offer_request_status: 'under_contract',
    });
    expect([moved.status, moved.body.offer_request_status]).toEqual([200, 'under_contract']);
    expect(await listed()).toBe(false);
    const reopened = await control(sandbox, 'POST', `/offer-requests/${id}/status`, {
      offer_request_status: 'active',
    });
    expect(reopened.body.offer_request_status).toBe('active');
    expect(await listed()).toBe(true);
    await control(sandbox, 'POST', `/offer-requests/${id}/status`, { offer_request_status: 'denied' });
    expect(
      (await control(sandbox, 'POST', `/offer-requests/${id}/status`, { offer_request_status: 'in_review' }))
        .body.offer_request_status,
    ).toBe('in_review');
    expect(
      (
        await control(sandbox, 'POST', `/offer-requests/${id}/status`, {
          offer_request_status: 'Not A Status',
        })
      ).status,
    ).toBe(400);
    expect(
      (await control(sandbox, 'POST', '/offer-requests/999999/status', { offer_request_status: 'active' }))
        .status,
    ).toBe(404);
  });

  it('offersQuery: parameters honoured, ignored (every offer in one page), or the page capped at 25', async () => {
    const a = await activeRequest(sandbox);
    const b = await activeRequest(sandbox, AGENT.key, {
      request: { offer_request_external_id: 'crm-deal-2' },
    });
    const onA: number[] = [];
    for (let i = 0; i < 27; i++) onA.push((await buyerOffer(sandbox, a.offer_request_id)).offer_id);
    const onB = (await buyerOffer(sandbox, b.offer_request_id)).offer_id;
    const page = (query: string) => call(sandbox, 'GET', `/offers?${query}`);

    expect(offerIds((await page(`offer_request_id=${b.offer_request_id}`)).body)).toEqual([onB]);
    expect(offerIds((await page('limit=2&offset=1')).body)).toEqual(onA.slice(1, 3));

    await readings({ offersQuery: 'ignored' });
    const ignored = await page(`offer_request_id=${b.offer_request_id}&limit=2&offset=1`);
    expect(ignored.status).toBe(200);
    expect(offerIds(ignored.body)).toEqual([...onA, onB]);

    await readings({ offersQuery: 'capped-25' });
    expect(offerIds((await page('limit=500&offset=0')).body)).toEqual(onA.slice(0, 25));
    expect(offerIds((await page('limit=500&offset=25')).body)).toEqual([...onA.slice(25), onB]);
    expect(offerIds((await page('limit=3&offset=25')).body)).toEqual([...onA.slice(25), onB]);
    expect(offerIds((await page(`offer_request_id=${b.offer_request_id}`)).body)).toEqual([onB]);

    // A limit over 100 refused, naming it and the maximum.
    await readings({ offersQuery: 'max-100' });
    const over = await page('limit=500&offset=0');
    expect([over.status, over.body.message]).toEqual([
      400,
      'limit must be a whole number from 1 to 100; got "500"',
    ]);
    expect(offerIds((await page('limit=100&offset=26')).body)).toEqual([onA[26], onB]);

    // Paging honoured, the filters refused by name.
    await readings({ offersQuery: 'paging-only' });
    const filtered = await page(`offer_request_id=${b.offer_request_id}&limit=10`);
    expect([filtered.status, filtered.body.message]).toEqual([
      400,
      'offer_request_id is not a query parameter of GET /offers (limit, offset)',
    ]);
    expect(offerIds((await page('limit=2&offset=1')).body)).toEqual(onA.slice(1, 3));

    // Every parameter refused; the plain GET lists every offer.
    await readings({ offersQuery: 'refused' });
    const refused = await page('limit=10');
    expect([refused.status, refused.body.message]).toEqual([400, 'Unknown query parameter: limit']);
    expect(offerIds((await call(sandbox, 'GET', '/offers')).body)).toEqual([...onA, onB]);
  });

  it('offersOrder: as made, newest first, or by last write (a decided offer moves to the end)', async () => {
    const request = await activeRequest(sandbox);
    const made: number[] = [];
    for (let i = 0; i < 4; i++) made.push((await buyerOffer(sandbox, request.offer_request_id)).offer_id);
    const listed = async () => offerIds((await call(sandbox, 'GET', '/offers')).body);
    expect(await listed()).toEqual(made);

    await readings({ offersOrder: 'newest-first' });
    expect(await listed()).toEqual([...made].reverse());

    await readings({ offersOrder: 'updated-last' });
    expect(await listed()).toEqual(made);
    const decided = await call(sandbox, 'PATCH', '/offers', { offer_id: made[1], offer_status: 'rejected' });
    expect(decided.status).toBe(200);
    expect(await listed()).toEqual([made[0], made[2], made[3], made[1]]);
    // The filters and the page apply to the order listed.
    expect(offerIds((await call(sandbox, 'GET', '/offers?limit=2&offset=2')).body)).toEqual([
      made[3],
      made[1],
    ]);
  });

  it('activeLimitOver, pageAfterLast, activeListShape: a limit over the cap refused, a page past the last an error, the declared request object', async () => {
    for (let i = 0; i < 3; i++) await activeRequest(sandbox);
    const active = (query: string) => call(sandbox, 'GET', `/active-offer-requests?${query}`);
    await readings({ activeLimitMax: 2 });
    expect((await active('limit=100')).body).toHaveLength(2);
    await readings({ activeLimitOver: 'refused' });
    const over = await active('limit=100');
    expect([over.status, over.body.message]).toEqual([
      400,
      'limit must be a whole number from 1 to 2; got "100"',
    ]);
    expect((await active('limit=2&offset=2')).body).toHaveLength(1);

    // Past the last page: empty (ours), 404 or 400; the first page is never an error.
    expect((await active('limit=2&offset=4')).body).toEqual([]);
    await readings({ pageAfterLast: '404' });
    expect((await active('limit=2&offset=4')).status).toBe(404);
    expect((await active('limit=2&offset=3')).status).toBe(404);
    await readings({ pageAfterLast: '400' });
    const past = await active('limit=2&offset=3');
    expect([past.status, past.body.message]).toEqual([400, 'offset 3 is out of range']);
    expect((await active('limit=2&offset=2')).body).toHaveLength(1);
    // The request object as the spec declares it: the asking price and the test flag only.
    await readings({ pageAfterLast: 'empty', activeListShape: 'declared' });
    const [item] = (await active('limit=1')).body;
    expect(Object.keys(item.request).sort()).toEqual(['offer_request_asking', 'test']);
    expect(item.property.StreetName).toEqual(expect.any(String));
    await readings({ activeListShape: 'no-external-id' });
    const [bare] = (await active('limit=1')).body;
    expect(bare.request.offer_request_id).toEqual(expect.any(Number));
    expect(bare.request).not.toHaveProperty('offer_request_external_id');
    await readings({ pageAfterLast: '400' });
    const offers = await call(sandbox, 'GET', '/offers?offset=5');
    expect(offers.status).toBe(400);
    await control(sandbox, 'POST', '/reset');
    expect((await call(sandbox, 'GET', '/offers')).body).toEqual([]);
    await readings({ pageAfterLast: '404' });
    expect((await call(sandbox, 'GET', '/offers')).body).toEqual([]);
  });

  it('errorCodes key-403-bare: a missing or unknown key answered 403 {"message":"Forbidden"} as an API gateway does; a known key\'s errors unchanged', async () => {
    await readings({ errorCodes: 'key-403-bare' });
    for (const headers of [{}, { authorization: 'not-a-key' }] as Record<string, string>[]) {
      const res = await fetch(`${sandbox.baseUrl}/offers`, { headers });
      expect([res.status, await res.json()]).toEqual([403, { message: 'Forbidden' }]);
    }
    const invalid = await call(sandbox, 'GET', '/active-offer-requests?limit=0');
    expect([invalid.status, invalid.body.error]).toEqual([400, 400]);
  });

  it.each([
    // [reading, the key alone, "Bearer <key>"]
    ['either', 200, 200],
    ['key-only', 200, 401],
    ['bearer-only', 401, 200],
  ])(
    'authorizationForm %s: the key alone answered %i, "Bearer <key>" %i',
    async (authorizationForm, alone, bearer) => {
      await readings({ authorizationForm });
      const statusWith = async (authorization: string) =>
        (await fetch(`${sandbox.baseUrl}/offers`, { headers: { authorization } })).status;
      expect([await statusWith(AGENT.key), await statusWith(`Bearer ${AGENT.key}`)]).toEqual([alone, bearer]);
      if (authorizationForm === 'bearer-only') {
        const res = await fetch(`${sandbox.baseUrl}/offers`, { headers: { authorization: AGENT.key } });
        expect(await res.json()).toEqual({
          error: 401,
          message: 'the Authorization header must be "Bearer <API key>"',
        });
      }
      expect(await statusWith('Bearer not-a-key')).toBe(401);
    },
  );

  it('activeSort: every order of ours, submission time only, the default only (others refused naming sort), or sort ignored', async () => {
    for (let i = 0; i < 3; i++) await activeRequest(sandbox);
    const ids = async (sort: string) => {
      const res = await call(sandbox, 'GET', `/active-offer-requests?limit=10&sort=${sort}`);
      return res.status === 200
        ? (res.body as { request: { offer_request_id: number } }[]).map((i) => i.request.offer_request_id)
        : res.status;
    };
    const ascending = (await ids('offer_request_id.asc')) as number[];
    expect(ascending).toEqual([...ascending].sort((a, b) => a - b));
    const newestFirst = await ids('offer_requested_at.desc');
    await readings({ activeSort: 'requested-at' });
    expect(await ids('offer_request_id.asc')).toBe(400);
    expect(await ids('offer_requested_at.asc')).toEqual(ascending);
    await readings({ activeSort: 'default-only' });
    expect(await ids('offer_requested_at.asc')).toBe(400);
    const refused = await call(sandbox, 'GET', '/active-offer-requests?sort=offer_request_id.asc');
    expect(refused.body.message).toBe(
      'unsupported sort "offer_request_id.asc"; sort may be offer_requested_at.desc',
    );
    expect(await ids('offer_requested_at.desc')).toEqual(newestFirst);
    await readings({ activeSort: 'ignored' });
    expect(await ids('offer_request_id.asc')).toEqual(newestFirst);
  });

  it('trailingSlash redirect: a path without the slash answered 307 to the slashed one, which answers', async () => {
    await readings({ trailingSlash: 'redirect' });
    const plain = await fetch(`${sandbox.baseUrl}/offers?limit=5`, {
      method: 'PATCH',
      headers: { authorization: AGENT.key },
      redirect: 'manual',
    });
    expect(plain.status).toBe(307);
    expect(plain.headers.get('location')).toBe('/api/v2/offers/?limit=5');
    expect((await call(sandbox, 'GET', '/offers/')).status).toBe(200);
    await readings({ trailingSlash: 'either' });
    expect((await call(sandbox, 'GET', '/offers')).status).toBe(200);
  });

  it('createAnswer: the record with 201 or 200, the id only, no status, or another status word', async () => {
    const expected: Record<string, { status: number; check: (body: Json) => void }> = {
      'record-201': { status: 201, check: (body) => expect(body.offer_request_status).toBe('in_review') },
      'record-200': { status: 200, check: (body) => expect(body.requested_by_agent).toBe(AGENT.userId) },
      'id-only-201': {
        status: 201,
        check: (body) => expect(Object.keys(body)).toEqual(['offer_request_id']),
      },
      'id-only-200': {
        status: 200,
        check: (body) => expect(Object.keys(body)).toEqual(['offer_request_id']),
      },
      'no-status': {
        status: 201,
        check: (body) => {
          expect(body).not.toHaveProperty('offer_request_status');
          expect(body.inventory_property_id).toEqual(expect.any(Number));
        },
      },
      'status-processing': {
        status: 201,
        check: (body) => expect(body.offer_request_status).toBe('processing'),
      },
      'status-active': { status: 201, check: (body) => expect(body.offer_request_status).toBe('active') },
      // The spec's formal declaration of the create's response: every field but the three ids.
      'declared-201': {
        status: 201,
        check: (body) => {
          for (const id of ['offer_request_id', 'requested_by_agent', 'submitted_by_user'])
            expect(body).not.toHaveProperty(id);
          expect(body.offer_request_status).toBe('in_review');
          expect(body.inventory_property_id).toEqual(expect.any(Number));
        },
      },
    };
    for (const [shape, { status, check }] of Object.entries(expected)) {
      await readings({ createAnswer: shape });
      const res = await call(sandbox, 'POST', '/offer-requests', createBody());
      expect([shape, res.status]).toEqual([shape, status]);
      check(res.body);
      // Only the answer changes: the request is stored as ours says.
      const stored = (await control(sandbox, 'GET', '/offer-requests')).body.at(-1);
      if (shape !== 'declared-201') expect(res.body.offer_request_id).toBe(stored.offer_request_id);
      expect(stored.offer_request_status).toBe('in_review');
    }
    const calls = (await control(sandbox, 'GET', '/calls')).body.filter(
      (c: Json) => c.method === 'POST' && c.path === '/api/v2/offer-requests',
    );
    expect(calls.map((c: { status: number }) => c.status)).toEqual([201, 200, 201, 200, 201, 201, 201, 201]);
  });

  it('offerListShape without-webhook-fields: GET and PATCH /offers leave out the fields the spec gives to webhook payloads', async () => {
    const req = await activeRequest(sandbox);
    const offer = await buyerOffer(sandbox, req.offer_request_id);
    const webhookFields = ['offer_request_external_id', 'external_id', 'viewed', 'offer_feedback'];
    const [ours] = (await call(sandbox, 'GET', '/offers')).body as Json[];
    expect(Object.keys(ours)).toEqual(expect.arrayContaining(webhookFields));
    await readings({ offerListShape: 'without-webhook-fields' });
    const [listed] = (await call(sandbox, 'GET', '/offers')).body as Json[];
    const decided = (
      await call(sandbox, 'PATCH', '/offers', { offer_id: offer.offer_id, offer_status: 'rejected' })
    ).body;
    for (const shown of [listed, decided]) {
      expect(shown.offer_id).toBe(offer.offer_id);
      for (const field of webhookFields) expect(Object.keys(shown)).not.toContain(field);
    }
  });

  it('decideAnswer, updateAnswer, leadAnswer: the other success codes', async () => {
    const req = await activeRequest(sandbox);
    const [one, two] = [
      await buyerOffer(sandbox, req.offer_request_id),
      await buyerOffer(sandbox, req.offer_request_id),
    ];
    await readings({ decideAnswer: 'empty-204', updateAnswer: 'record-200', leadAnswer: 'record-200' });

    const decided = await call(sandbox, 'PATCH', '/offers', {
      offer_id: one.offer_id,
      offer_status: 'rejected',
    });
    expect(decided.status).toBe(204);
    expect(decided.body).toBeUndefined();
    const listed = (await call(sandbox, 'GET', `/offers?offer_request_id=${req.offer_request_id}`)).body;
    expect(listed.find((o: Json) => o.offer_id === one.offer_id).offer_status).toBe('rejected');

    const updated = await call(sandbox, 'PATCH', `/offer-requests/${req.offer_request_id}`, {
      property: { ListAgentFirstName: 'Robin' },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      offer_request_id: req.offer_request_id,
      offer_request_status: 'active',
    });
    const media = await call(sandbox, 'PATCH', '/offer-requests/', {
      offer_request_id: req.offer_request_id,
      media: ['https://photos.example/1.jpg'],
    });
    expect(media.status).toBe(200);
    expect(media.body.offer_request_id).toBe(req.offer_request_id);

    const lead = await call(
      sandbox,
      'POST',
      '/buyer/lead',
      {
        first_name: 'Ann',
        last_name: 'Lee',
        primary_email: 'ann@e2e.example',
        property_address: {
          offer_request_id: req.offer_request_id,
          inventory_property_id: req.inventory_property_id,
        },
      },
      PARTNER.key,
    );
    expect(lead.status).toBe(200);
    expect(lead.body.lead_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(two.offer_status).toBe('active');
  });

  it('errorCodes: invalid bodies, impossible transitions and refused keys under each reading', async () => {
    const req = await activeRequest(sandbox);
    const offer = await buyerOffer(sandbox, req.offer_request_id);
    await call(sandbox, 'PATCH', '/offers', { offer_id: offer.offer_id, offer_status: 'rejected' });
    const invalid = () =>
      call(sandbox, 'POST', '/offer-requests', createBody({ property: { StreetName: 'x'.repeat(51) } }));
    const transition = () =>
      call(sandbox, 'PATCH', '/offers', { offer_id: offer.offer_id, offer_status: 'accepted' });
    const counterDecided = () =>
      call(sandbox, 'POST', '/counter-offers', { offer_id: offer.offer_id, counter_offer_amount: 1000 });
    const badKey = () => call(sandbox, 'GET', '/offers', undefined, 'not-a-key');
    const unknownId = () =>
      call(sandbox, 'PATCH', '/offers', { offer_id: 999_999, offer_status: 'accepted' });
    const statuses = async () =>
      Promise.all([invalid(), transition(), counterDecided(), badKey(), unknownId()]).then((answers) =>
        answers.map((a) => {
          // The error object repeats the status, whatever it is.
          expect(a.body.error).toBe(a.status);
          expect(a.body.message).toEqual(expect.any(String));
          return a.status;
        }),
      );
    expect(await statuses()).toEqual([400, 409, 409, 401, 404]);
    await readings({ errorCodes: 'all-422' });
    expect(await statuses()).toEqual([422, 422, 422, 403, 404]);
    await readings({ errorCodes: 'all-400' });
    expect(await statuses()).toEqual([400, 400, 400, 403, 404]);
    // The control API keeps its own codes.
    expect((await control(sandbox, 'POST', '/offer-requests/999999/approve')).status).toBe(404);
    expect(
      (
        await control(sandbox, 'POST', `/offer-requests/${req.offer_request_id}/offers`, {
          offer_expires: 'x',
        })
      ).status,
    ).toBe(400);
  });

  it('expiredOfferListedAs: an offer past offer_expires listed expired, not listed, listed rejected or still active', async () => {
    const req = await activeRequest(sandbox);
    const soon = await buyerOffer(sandbox, req.offer_request_id, {
      offer_expires: new Date(Date.now() + DAY).toISOString(),
    });
    const later = await buyerOffer(sandbox, req.offer_request_id, {
      offer_expires: new Date(Date.now() + 20 * DAY).toISOString(),
    });
    await control(sandbox, 'POST', '/clock/advance', { ms: 2 * DAY });
    const listed = async (query = '') => {
      const offers: { offer_id: number; offer_status: string }[] = (
        await call(sandbox, 'GET', `/offers${query}`)
      ).body;
      return Object.fromEntries(offers.map((o) => [o.offer_id, o.offer_status]));
    };
    expect(await listed()).toEqual({ [soon.offer_id]: 'expired', [later.offer_id]: 'active' });
    await readings({ expiredOfferListedAs: 'dropped' });
    expect(await listed()).toEqual({ [later.offer_id]: 'active' });
    expect(await listed('?status=expired')).toEqual({});
    await readings({ expiredOfferListedAs: 'rejected' });
    expect(await listed()).toEqual({ [soon.offer_id]: 'rejected', [later.offer_id]: 'active' });
    expect(await listed('?status=rejected')).toEqual({ [soon.offer_id]: 'rejected' });
    await readings({ expiredOfferListedAs: 'active' });
    expect(await listed()).toEqual({ [soon.offer_id]: 'active', [later.offer_id]: 'active' });
    // Deciding it is still the impossible transition it is under every reading.
    expect(
      (await call(sandbox, 'PATCH', '/offers', { offer_id: soon.offer_id, offer_status: 'accepted' })).status,
    ).toBe(409);
  });

  it('withdrawnOfferListedAs: an offer its buyer withdrew listed withdrawn, cancelled, or not at all', async () => {
    const req = await activeRequest(sandbox);
    const kept = await buyerOffer(sandbox, req.offer_request_id);
    const listed = async () => {
      const offers: { offer_id: number; offer_status: string }[] = (await call(sandbox, 'GET', '/offers'))
        .body;
      return Object.fromEntries(offers.map((o) => [o.offer_id, o.offer_status]));
    };
    const withdrawn = await buyerOffer(sandbox, req.offer_request_id);
    expect((await control(sandbox, 'POST', `/offers/${withdrawn.offer_id}/withdraw`)).body).toMatchObject({
      offer_status: 'withdrawn',
    });
    expect(await listed()).toEqual({ [kept.offer_id]: 'active', [withdrawn.offer_id]: 'withdrawn' });
    await readings({ withdrawnOfferListedAs: 'dropped' });
    expect(await listed()).toEqual({ [kept.offer_id]: 'active' });
    await readings({ withdrawnOfferListedAs: 'cancelled' });
    const cancelled = await buyerOffer(sandbox, req.offer_request_id);
    await control(sandbox, 'POST', `/offers/${cancelled.offer_id}/withdraw`);
    expect((await listed())[cancelled.offer_id]).toBe('cancelled');
    // Only an undecided offer can be withdrawn, and a withdrawn one can no longer be decided.
    expect((await control(sandbox, 'POST', `/offers/${cancelled.offer_id}/withdraw`)).status).toBe(409);
    expect(
      (await call(sandbox, 'PATCH', '/offers', { offer_id: withdrawn.offer_id, offer_status: 'accepted' }))
        .status,
    ).toBe(409);
  });

  it('counterRejectedOfferListedAs: the countered offer rejected, active again (decidable), or still countered once the buyer rejects the counter', async () => {
    const req = await activeRequest(sandbox);
    type Listed = { offer_id: number; offer_status: string; offer_decided_at: string | null };
    const listed = async (offerId: number): Promise<Listed | undefined> => {
      const offers: Listed[] = (await call(sandbox, 'GET', '/offers')).body;
      return offers.find((o) => o.offer_id === offerId);
    };
    const decide = async (offerId: number, offer_status: string) =>
      (await call(sandbox, 'PATCH', '/offers', { offer_id: offerId, offer_status })).status;
    // An offer countered, then the counter rejected by its buyer.
    const refused = async () => {
      const offer = await buyerOffer(sandbox, req.offer_request_id);
      const counter = await call(sandbox, 'POST', '/counter-offers', {
        offer_id: offer.offer_id,
        counter_offer_amount: 270_000,
      });
      const counterId: number = counter.body.counter_offer_id;
      const res = await control(sandbox, 'POST', `/counter-offers/${counterId}/reject`);
      expect(res.body.counter_offer_status).toBe('rejected');
      const offerId: number = offer.offer_id;
      return offerId;
    };

    const rejected = await refused();
    expect((await listed(rejected))?.offer_status).toBe('rejected');
    expect(await decide(rejected, 'accepted')).toBe(409);

    await readings({ counterRejectedOfferListedAs: 'countered' });
    const waiting = await refused();
    expect((await listed(waiting))?.offer_status).toBe('countered');
    // How a countered offer is shown composes with it.
    await readings({ counteredOfferListedAs: 'active' });
    expect((await listed(waiting))?.offer_status).toBe('active');
    await readings({ counteredOfferListedAs: 'countered' });
    expect(await decide(waiting, 'accepted')).toBe(409);
    expect(await decide(waiting, 'rejected')).toBe(200);

    await readings({ counterRejectedOfferListedAs: 'active' });
    const reopened = await refused();
    expect(await listed(reopened)).toMatchObject({ offer_status: 'active', offer_decided_at: null });
    // Undecided again: the seller accepts it (the cascade as for any offer).
    expect(await decide(reopened, 'accepted')).toBe(200);
    expect((await listed(reopened))?.offer_status).toBe('accepted');
  });

  it('idSequences from-one: requests, properties, offers and counters each counted from 1; each numbering goes on where it left off', async () => {
    const made = async (): Promise<number[]> => {
      const req = await activeRequest(sandbox);
      const offer = await buyerOffer(sandbox, req.offer_request_id);
      const counter = await call(sandbox, 'POST', '/counter-offers', {
        offer_id: offer.offer_id,
        counter_offer_amount: 270_000,
      });
      const ids: unknown[] = [
        req.offer_request_id,
        req.inventory_property_id,
        offer.offer_id,
        counter.body.counter_offer_id,
      ];
      return ids as number[];
    };
    expect(await made()).toEqual([1001, 500_001, 7001, 9001]);
    await readings({ idSequences: 'from-one' });
    expect(await made()).toEqual([1, 1, 1, 1]);
    expect(await made()).toEqual([2, 2, 2, 2]);
    // Back to ranges apart, and to from-one again: each goes on where it left off.
    await readings({ idSequences: 'apart' });
    expect(await made()).toEqual([1002, 500_002, 7002, 9002]);
    await readings({ idSequences: 'from-one' });
    expect(await made()).toEqual([3, 3, 3, 3]);
    // A reset starts both numberings again.
    await control(sandbox, 'POST', '/reset');
    await readings({ idSequences: 'from-one' });
    expect(await made()).toEqual([1, 1, 1, 1]);
  });

  it("duplicateExternalId refused: a second create with an external id the account's request holds answered 409 naming both, or that reading's code", async () => {
    const first = await call(sandbox, 'POST', '/offer-requests', createBody());
    expect(first.status).toBe(201);
    // Stored as another request (ours).
    expect((await call(sandbox, 'POST', '/offer-requests', createBody())).status).toBe(201);
    await readings({ duplicateExternalId: 'refused' });
    const refused = await call(sandbox, 'POST', '/offer-requests', createBody());
    expect(refused.status).toBe(409);
    expect(refused.body.message).toBe(
      `offer_request_external_id "crm-deal-1" is already used by offer request ${first.body.offer_request_id}`,
    );
    await readings({ errorCodes: 'all-422' });
    expect((await call(sandbox, 'POST', '/offer-requests', createBody())).status).toBe(422);
    // Another external id, or another account's request with the same one, is no duplicate.
    await readings({ errorCodes: 'ours' });
    const other = createBody({
      request: { offer_request_asking: 250_000, offer_request_external_id: 'crm-deal-2' },
    });
    expect((await call(sandbox, 'POST', '/offer-requests', other)).status).toBe(201);
    expect((await call(sandbox, 'POST', '/offer-requests', createBody(), PARTNER.key)).status).toBe(201);
  });

  it('counterAcceptedOriginalListedAs: the countered offer rejected with the others, or left as it was listed', async () => {
    const statusesAfterAcceptance = async () => {
      const req = await activeRequest(sandbox);
      const countered = await buyerOffer(sandbox, req.offer_request_id);
      const other = await buyerOffer(sandbox, req.offer_request_id);
      const counter = await call(sandbox, 'POST', '/counter-offers', {
        offer_id: countered.offer_id,
        counter_offer_amount: 230_000,
      });
      const made = await control(sandbox, 'POST', `/counter-offers/${counter.body.counter_offer_id}/accept`);
      const offers = (await call(sandbox, 'GET', '/offers')).body as Json[];
      const status = (id: number): unknown => offers.find((o) => o.offer_id === id)?.offer_status;
      return {
        countered: status(countered.offer_id),
        other: status(other.offer_id),
        made: status(made.body.offer_id),
      };
    };

    expect(await statusesAfterAcceptance()).toEqual({
      countered: 'rejected',
      other: 'rejected',
      made: 'accepted',
    });
    await readings({ counterAcceptedOriginalListedAs: 'unchanged' });
    expect(await statusesAfterAcceptance()).toEqual({
      countered: 'countered',
      other: 'rejected',
      made: 'accepted',
    });
    await readings({ counteredOfferListedAs: 'active' });
    expect(await statusesAfterAcceptance()).toEqual({
      countered: 'active',
      other: 'rejected',
      made: 'accepted',
    });
  });

  it('counteredOfferDecisions: an offer whose counter waits may be rejected only, or accepted too, which rejects the counter', async () => {
    const countered = async () => {
      const req = await activeRequest(sandbox);
      const offer = await buyerOffer(sandbox, req.offer_request_id);
      const other = await buyerOffer(sandbox, req.offer_request_id);
      const counter = await call(sandbox, 'POST', '/counter-offers', {
        offer_id: offer.offer_id,
        counter_offer_amount: 231_000,
      });
      return { offer, other, counterId: counter.body.counter_offer_id as number };
    };
    const accept = (offerId: number) =>
      call(sandbox, 'PATCH', '/offers', { offer_id: offerId, offer_status: 'accepted' });
    const counterStatus = async (id: number): Promise<unknown> =>
      ((await control(sandbox, 'GET', '/counter-offers')).body as Json[]).find(
        (c) => c.counter_offer_id === id,
      )?.counter_offer_status;

    const ours = await countered();
    const refused = await accept(ours.offer.offer_id);
    expect(refused.status).toBe(409);
    expect(refused.body.message).toContain('countered');
    expect(await counterStatus(ours.counterId)).toBe('pending');

    await readings({ counteredOfferDecisions: 'accept-too' });
    const taken = await countered();
    const accepted = await accept(taken.offer.offer_id);
    expect(accepted.status).toBe(200);
    expect(accepted.body.offer_status).toBe('accepted');
    const offers = (await call(sandbox, 'GET', '/offers')).body as Json[];
    expect(offers.find((o) => o.offer_id === taken.other.offer_id)?.offer_status).toBe('rejected');
    expect(await counterStatus(taken.counterId)).toBe('rejected');
  });

  it('counteredOfferDecisions as-listed: an offer whose counter waits is decided only where it is listed active', async () => {
    const decide = (offerId: number, offer_status: string) =>
      call(sandbox, 'PATCH', '/offers', { offer_id: offerId, offer_status });
    const counteredUnder = async (listedAs: string) => {
      await readings({ counteredOfferDecisions: 'as-listed', counteredOfferListedAs: listedAs });
      const req = await activeRequest(sandbox);
      const offer = await buyerOffer(sandbox, req.offer_request_id);
      await call(sandbox, 'POST', '/counter-offers', {
        offer_id: offer.offer_id,
        counter_offer_amount: 232_000,
      });
      return offer.offer_id as number;
    };
    const countered = await counteredUnder('countered');
    for (const decision of ['rejected', 'accepted']) {
      const refused = await decide(countered, decision);
      expect(refused.status).toBe(409);
      expect(refused.body.message).toBe(`offer ${countered} is countered; it can no longer be ${decision}`);
    }
    const listedActive = await counteredUnder('active');
    expect((await decide(listedActive, 'rejected')).status).toBe(200);
  });

  it('counterAfterSellerReject: the seller’s reject ends the counter, or leaves it for its buyer to answer', async () => {
    const rejectedWhileCountered = async () => {
      const req = await activeRequest(sandbox);
      const offer = await buyerOffer(sandbox, req.offer_request_id);
      const counter = await call(sandbox, 'POST', '/counter-offers', {
        offer_id: offer.offer_id,
        counter_offer_amount: 233_000,
      });
      const rejected = await call(sandbox, 'PATCH', '/offers', {
        offer_id: offer.offer_id,
        offer_status: 'rejected',
      });
      expect(rejected.body.offer_status).toBe('rejected');
      return counter.body.counter_offer_id as number;
    };
    const ended = await rejectedWhileCountered();
    expect((await control(sandbox, 'POST', `/counter-offers/${ended}/accept`)).status).toBe(409);

    await readings({ counterAfterSellerReject: 'standing' });
    const standing = await rejectedWhileCountered();
    const accepted = await control(sandbox, 'POST', `/counter-offers/${standing}/accept`);
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({ offer_status: 'accepted', offer_amount: 233_000 });
  });

  it('counterOmittedFields: a left-out term kept from the offer, stored as false or 0, or refused as required (the status too under all)', async () => {
    const terms = {
      buyer_pays_listing_broker_commission: true,
      listing_broker_commission_pct: 2.5,
      earnest_money: 6000,
      lease_back: true,
    };
    // Each on a request of its own: an accepted counter puts its request under contract.
    const acceptedAfter = async (body: Record<string, unknown>) => {
      const req = await activeRequest(sandbox);
      const offer = await buyerOffer(sandbox, req.offer_request_id, terms);
      const counter = await call(sandbox, 'POST', '/counter-offers', { offer_id: offer.offer_id, ...body });
      if (counter.status !== 201) return counter;
      return control(sandbox, 'POST', `/counter-offers/${counter.body.counter_offer_id}/accept`);
    };

    const kept = await acceptedAfter({ counter_offer_amount: 210_000 });
    expect(kept.body).toMatchObject({ offer_amount: 210_000, offer_status: 'accepted', ...terms });

    await readings({ counterOmittedFields: 'defaults' });
    const defaulted = await acceptedAfter({ counter_offer_amount: 211_000, counter_lease_back: true });
    expect(defaulted.body).toMatchObject({
      offer_amount: 211_000,
      buyer_pays_listing_broker_commission: false,
      listing_broker_commission_pct: 0,
      earnest_money: 0,
      lease_back: true,
    });

    await readings({ counterOmittedFields: 'required', errorCodes: 'all-422' });
    const refused = await acceptedAfter({ counter_offer_amount: 212_000, counter_offer_memo: 'firm' });
    expect(refused.status).toBe(422);
    for (const field of [
      'counter_earnest_money',
      'counter_offer_expires',
      'counter_offer_terms',
      'listing_broker_commission_pct',
    ])
      expect(refused.body.message).toContain(`${field} is required`);
    expect(refused.body.message).not.toContain('counter_offer_memo');
    expect(refused.body.message).not.toContain('counter_offer_status');

    // `all`: the table as the body schema, `test` and the status too, the status in its own word.
    await readings({ counterOmittedFields: 'all', counterPendingWord: 'open', errorCodes: 'ours' });
    const complete = {
      counter_offer_amount: 213_000,
      buyer_pays_buyer_broker_commission: true,
      buyer_pays_listing_broker_commission: true,
      listing_broker_commission_pct: 2.5,
      counter_offer_memo: 'firm',
      counter_offer_expires: new Date(Date.now() + 86_400_000).toISOString(),
      counter_offer_terms: {},
      counter_earnest_money: 6000,
      counter_em_hard_post_inspection: false,
      counter_lease_back: false,
      counter_lease_back_period: 0,
      counter_flexible_closing: false,
      counter_post_possession: false,
      counter_waive_warranty: false,
      counter_inspection_period: 10,
      counter_post_possession_period: 0,
    };
    const noStatus = await acceptedAfter(complete);
    expect(noStatus.status).toBe(400);
    expect(noStatus.body.message).toContain('test is required');
    expect(noStatus.body.message).toContain('counter_offer_status is required');
    const wrongWord = await acceptedAfter({ ...complete, test: false, counter_offer_status: 'pending' });
    expect(wrongWord.status).toBe(400);
    expect(wrongWord.body.message).toContain('counter_offer_status may only be "open"');
    const taken = await acceptedAfter({ ...complete, test: false, counter_offer_status: 'open' });
    expect(taken.body).toMatchObject({ offer_amount: 213_000, offer_status: 'accepted' });
  });

  it('updateBodyShape create-shape: an update checked as a create body, only the listing-agent fields applied', async () => {
    const req = await activeRequest(sandbox);
    const id = req.offer_request_id as number;
    await readings({ updateBodyShape: 'create-shape' });
    const alone = await call(sandbox, 'PATCH', `/offer-requests/${id}`, {
      property: { ListAgentFirstName: 'Robin' },
    });
    expect(alone.status).toBe(400);
    expect(alone.body.message).toContain('request');
    expect(alone.body.message).toContain('StreetNumber');
    const whole = createBody({ property: { ListAgentFirstName: 'Robin', StreetName: 'Another St' } });
    expect((await call(sandbox, 'PATCH', `/offer-requests/${id}`, whole)).status).toBe(204);
    const [held] = (await control(sandbox, 'GET', '/offer-requests')).body.filter(
      (r: Json) => r.offer_request_id === id,
    );
    expect(held.property.ListAgentFirstName).toBe('Robin');
    // Not an updatable field: ignored, not applied.
    expect(held.property.StreetName).not.toBe('Another St');
  });

  it('leadRequiredFields all: a lead without a phone, an email or the property id refused with 400 naming each', async () => {
    const req = await activeRequest(sandbox);
    const lead = (fields: Record<string, unknown>, address: Record<string, unknown>) =>
      call(
        sandbox,
        'POST',
        '/buyer/lead',
        { first_name: 'Ann', last_name: 'Lee', ...fields, property_address: address },
        PARTNER.key,
      );
    const requestOnly = { offer_request_id: req.offer_request_id };
    const whole = { ...requestOnly, inventory_property_id: req.inventory_property_id };
    // Ours: a name and one way to reach the buyer.
    expect((await lead({ primary_email: 'ann@e2e.example' }, requestOnly)).status).toBe(201);

    await readings({ leadRequiredFields: 'all' });
    const refused = await lead({ primary_email: 'ann@e2e.example' }, requestOnly);
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe(
      'primary_phone is required; property_address.inventory_property_id is required',
    );
    expect((await lead({ primary_phone: '+15125550100' }, whole)).body.message).toBe(
      'primary_email is required',
    );
    const complete = await lead({ primary_email: 'ann@e2e.example', primary_phone: '+15125550100' }, whole);
    expect(complete.status).toBe(201);
    expect((await control(sandbox, 'GET', '/buyer-leads')).body).toHaveLength(2);
  });

  it('webhookMethods: POST sets and PATCH replaces (404 when none), POST only once (409), or PATCH 422 when none', async () => {
    const wh = (method: 'POST' | 'PATCH', url: string) => call(sandbox, method, '/wh', { url });
    expect((await wh('PATCH', 'https://a.example/1')).status).toBe(404);
    expect((await wh('POST', 'https://a.example/1')).status).toBe(201);
    expect((await wh('POST', 'https://a.example/2')).status).toBe(201);
    await readings({ webhookMethods: 'post-once' });
    expect((await wh('POST', 'https://a.example/3')).status).toBe(409);
    expect((await wh('PATCH', 'https://a.example/3')).status).toBe(200);
    await control(sandbox, 'POST', '/reset');
    await readings({ webhookMethods: 'patch-422-when-none' });
    expect((await wh('PATCH', 'https://a.example/4')).status).toBe(422);
    expect((await wh('POST', 'https://a.example/4')).status).toBe(201);
  });
});

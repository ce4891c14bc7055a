import { CashOfferClient, CashOfferError, offerListPages } from '../../../src/cash-offer';
import { Offer } from '../../../src/cash-offer/schema';
import { listAllOffers, streamOffers } from '../../../src/sync/common/offer-pages';
import { toSellerRequestResult } from '../../../src/sync/seller-requests/seller-request.result';
import { SandboxHarness, offerRequestBody } from './sandbox.harness';

// The client and the daemon's readers against the sandbox answering each other way the spec leaves
// open (docs/sandbox.md, "Spec readings"): success codes, the create's answer, error codes and the
// offers list's query.
describe('CashOfferClient under other spec readings (sandbox)', () => {
  const h = new SandboxHarness();
  let agent: CashOfferClient;

  beforeAll(async () => {
    await h.start();
    agent = h.client();
  });
  afterAll(() => h.stop());
  beforeEach(() => h.reset());

  const readings = (body: Record<string, unknown>) => h.control('PUT', '/spec-readings', body);
  const activeRequestId = async (): Promise<number> => {
    const id = toSellerRequestResult(await agent.createOfferRequest(offerRequestBody())).offer_request_id!;
    await h.control('POST', `/offer-requests/${id}/approve`);
    return id;
  };
  const offerOn = (requestId: number, amount = 250_000) =>
    h.control<Offer>('POST', `/offer-requests/${requestId}/offers`, { offer_amount: amount });
  // GET /offers read `size` offers a page, as the daemon's streams page it.
  const smallPages = (client: CashOfferClient, size: number) =>
    offerListPages((limit, offset) => client.listOffers({ limit, offset }), size);
  const refusal = async (call: Promise<unknown>): Promise<CashOfferError> => {
    const error = await call.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(CashOfferError);
    return error as CashOfferError;
  };

  it('createAnswer: every shape yields the request id the write-back needs', async () => {
    const shapes = [
      'record-201',
      'record-200',
      'id-only-201',
      'id-only-200',
      'no-status',
      'status-processing',
      'status-active',
    ];
    for (const shape of shapes) {
      await readings({ createAnswer: shape });
      const result = toSellerRequestResult(await agent.createOfferRequest(offerRequestBody()));
      const stored = (await h.storedRequests()).at(-1)!;
      expect([shape, result.offer_request_id]).toEqual([shape, stored.offer_request_id]);
      if (shape.startsWith('id-only') || shape === 'no-status')
        expect(result.offer_request_status).toBeUndefined();
      else
        expect(result.offer_request_status).toBe(
          shape.replace(/^status-/, '').replace(/^record-\d+$/, 'in_review'),
        );
    }
  });

  it('decideAnswer empty-204, updateAnswer record-200, leadAnswer record-200: each call succeeds', async () => {
    const id = await activeRequestId();
    const [one, two] = [await offerOn(id), await offerOn(id, 260_000)];
    await readings({ decideAnswer: 'empty-204', updateAnswer: 'record-200', leadAnswer: 'record-200' });
    await expect(agent.decideOffer(one.offer_id, 'rejected')).resolves.toBeUndefined();
    expect((await listAllOffers(agent, id)).find((o) => o.offer_id === one.offer_id)?.offer_status).toBe(
      'rejected',
    );
    await expect(
      agent.updateOfferRequest(id, { property: { ListAgentFirstName: 'Robin' } }),
    ).resolves.toBeUndefined();
    await expect(agent.addMedia(id, ['https://photos.example.test/back.jpg'])).resolves.toBeUndefined();
    const partner = h.client({ apiKey: 'sandbox-partner-key' });
    const lead = await partner.submitBuyerLead({
      first_name: 'Bea',
      last_name: 'Buyer',
      primary_email: 'bea@buyers.example',
      property_address: { offer_request_id: id },
    });
    expect(lead).toMatchObject({ offer_request_id: id, lead_id: expect.any(String) });
    const statuses = (await h.calls())
      .filter((c) => c.method !== 'GET')
      .map((c) => `${c.method} ${c.status}`);
    expect(statuses).toEqual(expect.arrayContaining(['PATCH 204', 'PATCH 200', 'POST 200']));
    expect(two.offer_status).toBe('active');
  });

  it.each([
    ['ours', 400, 'CONFLICT', 409, 401],
    ['all-422', 422, 'INVALID_RECORD', 422, 403],
    ['all-400', 400, 'INVALID_RECORD', 400, 403],
    ['key-400', 400, 'CONFLICT', 409, 400],
  ])(
    'errorCodes %s: invalid (%i), impossible transition (%s %i), refused key (%i) are each final, never retried',
    async (codes, invalid, transitionCode, transition, key) => {
      await readings({ errorCodes: codes });
      const id = await activeRequestId();
      const offer = await offerOn(id);
      await agent.decideOffer(offer.offer_id, 'accepted');
      await h.control('DELETE', '/calls');

      // The service's own validation (the client's checks are the same wire rules, so a body the
      // client cannot refuse: a 51-character StreetName sent by a raw call is refused by both).
      const res = await fetch(`${h.sandbox.baseUrl}/offer-requests`, {
        method: 'POST',
        headers: { authorization: h.sandbox.agentKey, 'content-type': 'application/json' },
        body: JSON.stringify({ ...offerRequestBody(), property: { StreetName: 'x'.repeat(51) } }),
      });
      expect(res.status).toBe(invalid);

      const decided = await refusal(agent.decideOffer(offer.offer_id, 'rejected'));
      expect([decided.code, decided.status, decided.retryable]).toEqual([transitionCode, transition, false]);
      expect(decided.message).toContain(`offer ${offer.offer_id} is accepted`);
      const countered = await refusal(
        agent.counterOffer({ offer_id: offer.offer_id, counter_offer_amount: 1 }),
      );
      expect([countered.code, countered.status]).toEqual([transitionCode, transition]);

      const stranger = h.client({ apiKey: 'not-a-key' });
      const refused = await refusal(stranger.listOffers());
      expect([refused.code, refused.status, refused.retryable]).toEqual(['AUTH_FAILED', key, false]);
      // One attempt each: nothing final is retried. The refused key is also tried as "Bearer <key>"
      // once (the service never took it), within the one attempt.
      const sent = (await h.calls()).filter(
        (c) => c.path.startsWith('/api/v2/offers') || c.path.startsWith('/api/v2/counter'),
      );
      expect(sent.map((c) => c.status)).toEqual([transition, transition, key, key]);
    },
  );

  it.each([
    ['either', 'k', 1],
    ['either', 'Bearer k', 1],
    ['key-only', 'k', 1],
    ['key-only', 'Bearer k', 2],
    ['bearer-only', 'k', 2],
    ['bearer-only', 'Bearer k', 1],
  ])(
    'authorizationForm %s, key configured as %j: every call succeeds; the first takes %i request(s), later ones one',
    async (authorizationForm, written, firstCallRequests) => {
      await readings({ authorizationForm });
      const key = written.replace('k', h.sandbox.agentKey);
      const client = h.client({ apiKey: key });
      await h.control('DELETE', '/calls');
      const created = toSellerRequestResult(await client.createOfferRequest(offerRequestBody()));
      expect((await h.storedRequests()).map((r) => r.offer_request_id)).toEqual([created.offer_request_id]);
      await h.control('POST', `/offer-requests/${created.offer_request_id}/approve`);
      const offer = await offerOn(created.offer_request_id!);
      expect((await client.listOffers()).map((o) => o.offer_id)).toEqual([offer.offer_id]);
      await client.decideOffer(offer.offer_id, 'accepted');
      const statuses = (await h.calls()).map((c) => `${c.method} ${c.status}`);
      expect(statuses).toEqual([
        ...(firstCallRequests === 2 ? ['POST 401'] : []),
        'POST 201',
        'GET 200',
        'PATCH 200',
      ]);
      // A wrong key is refused both ways, and said to be the key.
      const refused = await refusal(h.client({ apiKey: 'not-a-key' }).listOffers());
      expect([refused.code, refused.keyRefused]).toEqual(['AUTH_FAILED', true]);
    },
  );

  it.each([
    ['ignored', 'empty'],
    ['capped-25', '404'],
    ['max-100', '400'],
    ['paging-only', '404'],
    ['refused', 'empty'],
  ])(
    'offersQuery %s, pageAfterLast %s: every offer is streamed once, and one request reads only its own',
    async (offersQuery, pageAfterLast) => {
      const a = await activeRequestId();
      const b = await activeRequestId();
      const onA: number[] = [];
      for (let i = 0; i < 27; i++) onA.push((await offerOn(a, 200_000 + i)).offer_id);
      const onB = (await offerOn(b)).offer_id;
      await readings({ offersQuery, pageAfterLast });
      // A client of its own: what it learns of the service's query is kept for its brokerage.
      const client = h.client();
      const streamed: number[] = [];
      for await (const page of streamOffers(client)) streamed.push(...page.map((o) => o.offer_id));
      expect(streamed).toEqual([...onA, onB]);
      expect((await listAllOffers(client, b)).map((o) => o.offer_id)).toEqual([onB]);
      expect((await listAllOffers(client, a)).map((o) => o.offer_id)).toEqual(onA);
    },
  );

  // The likeliest GET /offers of a service written from the spec alone (which shows no query
  // parameters) takes none: a read asks again past the first page to be sure, and learns from it.
  it('offersQuery ignored: after one read has seen the first page given again, each read is one GET', async () => {
    const a = await activeRequestId();
    const b = await activeRequestId();
    const onA: number[] = [];
    for (let i = 0; i < 4; i++) onA.push((await offerOn(a, 210_000 + i)).offer_id);
    const onB = (await offerOn(b)).offer_id;
    await readings({ offersQuery: 'ignored' });
    const client = h.client();
    const reads = async (read: () => Promise<unknown>) => {
      await h.control('DELETE', '/calls');
      await read();
      return (await h.calls()).filter((c) => c.method === 'GET').length;
    };
    expect(await reads(async () => expect(await listAllOffers(client, a)).toEqual(expect.any(Array)))).toBe(
      3,
    );
    expect(
      await reads(async () => expect((await listAllOffers(client, b)).map((o) => o.offer_id)).toEqual([onB])),
    ).toBe(1);
    expect(
      await reads(async () => expect((await listAllOffers(client, a)).map((o) => o.offer_id)).toEqual(onA)),
    ).toBe(1);
  });

  it.each([
    ['newest-first', 'capped-25'],
    ['updated-last', 'capped-25'],
    ['updated-last', 'params'],
  ])(
    'offersOrder %s, offersQuery %s: offers decided and made between pages are each streamed once, none missed',
    async (offersOrder, offersQuery) => {
      const request = await activeRequestId();
      const before: number[] = [];
      for (let i = 0; i < 60; i++) before.push((await offerOn(request, 300_000 + i)).offer_id);
      await readings({ offersOrder, offersQuery });
      const client = h.client();
      const streamed: number[] = [];
      const during: number[] = [];
      let pages = 0;
      // The daemon's page size is 500; under `params` a small one makes the same pass several pages.
      const pageSize = offersQuery === 'params' ? 25 : undefined;
      for await (const page of pageSize ? smallPages(client, pageSize) : streamOffers(client)) {
        streamed.push(...page.map((o) => o.offer_id));
        if (++pages > 3) continue;
        // Between pages: one offer already read and one not yet read are decided (under
        // updated-last each moves to the end of the list), and a buyer makes a new offer.
        const read = page[0].offer_id;
        const unread = before.find((id) => !streamed.includes(id) && !during.includes(id));
        for (const id of [read, unread]) if (id !== undefined) await agent.decideOffer(id, 'rejected');
        during.push(read, ...(unread !== undefined ? [unread] : []));
        await offerOn(request, 400_000 + pages);
      }
      // Every offer listed at the start is streamed exactly once; a new one may or may not be.
      expect(streamed.filter((id) => before.includes(id)).sort()).toEqual([...before].sort());
      expect(new Set(streamed).size).toBe(streamed.length);
      expect(pages).toBeGreaterThan(2);
    },
  );

  it.each([
    // [active requests, activeLimitMax, activeLimitOver, pageAfterLast]
    [57, 25, 'refused', '400'],
    // A whole number of full pages: the 400 past the last comes after a full page.
    [50, 25, 'refused', '400'],
    [50, 25, 'refused', '404'],
    [57, 25, 'capped', '404'],
    [30, 10, 'refused', 'empty'],
  ])(
    'the active list of %i requests, limit at most %i %s, %s past the last page: every request read once',
    async (count, activeLimitMax, activeLimitOver, pageAfterLast) => {
      await h.control('POST', '/seed-active', { count });
      await readings({ activeLimitMax, activeLimitOver, pageAfterLast });
      const client = h.client();
      const ids: number[] = [];
      for await (const page of client.streamActiveOfferRequests())
        ids.push(...page.map((item) => item.request.offer_request_id!));
      expect(new Set(ids).size).toBe(count);
      expect(ids).toHaveLength(count);
      // The page size the service took is kept, and the end of the list taught nothing about it: the
      // next read asks it at once, a full page at a time, each from the last item of the one before
      // (so a full page brings one item fewer than the first), then that last item alone: the end.
      // No page past the last is asked, so how the service answers one does not matter.
      await h.control('DELETE', '/calls');
      for await (const _page of client.streamActiveOfferRequests()) void _page;
      const calls = (await h.calls()).filter((c) => c.path.includes('active'));
      expect(calls.map((c) => c.status)).toEqual(
        Array(Math.ceil((count - 1) / (activeLimitMax - 1)) + 1).fill(200),
      );
    },
  );
});

import { CashOfferClient, CashOfferError } from '../../../src/cash-offer';
import { Offer, OfferRequestRecord } from '../../../src/cash-offer/schema';
import { SandboxHarness, offerRequestBody } from './sandbox.harness';

// Every endpoint of the spec through the client, over real HTTP against the sandbox.
describe('CashOfferClient contract (sandbox)', () => {
  const h = new SandboxHarness();
  let agent: CashOfferClient;

  beforeAll(async () => {
    await h.start();
    agent = h.client();
  });
  afterAll(() => h.stop());

  async function activeRequest(): Promise<OfferRequestRecord & { offer_request_id: number }> {
    const record = await agent.createOfferRequest(offerRequestBody());
    const id = record!.offer_request_id!;
    await h.control('POST', `/offer-requests/${id}/approve`);
    return { ...record!, offer_request_id: id };
  }

  async function offerOn(requestId: number, amount = 250_000): Promise<Offer> {
    return h.control<Offer>('POST', `/offer-requests/${requestId}/offers`, { offer_amount: amount });
  }

  describe('every endpoint succeeds', () => {
    it('creates an offer request and keeps its sample status', async () => {
      const record = await agent.createOfferRequest(offerRequestBody());
      expect(record).toMatchObject({ offer_request_status: 'in_review' });
      expect(typeof record?.offer_request_id).toBe('number');
      expect(typeof record?.inventory_property_id).toBe('number');
    });

    it('reports prelim counts', async () => {
      const counts = await agent.prelim({ inventory: { StateOrProvince: 'TX', PostalCode: '78701' } });
      expect(counts).toEqual({ buyer_count: expect.any(Number), buy_box_count: expect.any(Number) });
    });

    it('updates the listing agent fields and adds media in both forms', async () => {
      const { offer_request_id: id } = await activeRequest();
      await expect(
        agent.updateOfferRequest(id, {
          property: { ListAgentFirstName: 'Ada' },
          media: ['https://p.test/2.jpg'],
        }),
      ).resolves.toBeUndefined();
      await expect(agent.addMedia(id, ['https://p.test/3.jpg'])).resolves.toBeUndefined();
      const stored = await h.control<
        Array<{ offer_request_id: number; property: Record<string, unknown>; media: unknown[] }>
      >('GET', '/offer-requests');
      const mine = stored.find((r) => r.offer_request_id === id)!;
      expect(mine.property.ListAgentFirstName).toBe('Ada');
      expect(mine.media).toHaveLength(3);
    });

    it('lists one page and streams every page of the active list', async () => {
      await h.control('POST', '/seed-active', { count: 23 });
      const page = await agent.listActiveOfferRequests({ limit: 5, sort: 'offer_request_id.asc' });
      expect(page).toHaveLength(5);
      expect(page[0]).toEqual(
        expect.objectContaining({ request: expect.any(Object), property: expect.any(Object) }),
      );
      const ids: number[] = [];
      let pages = 0;
      for await (const p of agent.streamActiveOfferRequests({ pageSize: 10, sort: 'offer_request_id.asc' })) {
        pages++;
        expect(p.length).toBeLessThanOrEqual(10);
        ids.push(...p.map((r) => r.request.offer_request_id!));
      }
      const all = await h.control<Array<{ offer_request_id: number; offer_request_status: string }>>(
        'GET',
        '/offer-requests',
      );
      const active = all.filter((r) => ['active', 'receiving_offers'].includes(r.offer_request_status));
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.sort((a, b) => a - b)).toEqual(active.map((r) => r.offer_request_id).sort((a, b) => a - b));
      expect(pages).toBe(Math.ceil(active.length / 10) + (active.length % 10 === 0 ? 1 : 0));
    });

    it('lists offers, rejects one and counters another', async () => {
      const { offer_request_id: id } = await activeRequest();
      const first = await offerOn(id, 240_000);
      const second = await offerOn(id, 245_000);
      const offers = await agent.listOffers({ offer_request_id: id });
      expect(offers.map((o) => o.offer_id).sort()).toEqual([first.offer_id, second.offer_id].sort());
      expect(offers[0].offer_status).toBe('active');

      const rejected = await agent.decideOffer(first.offer_id, 'rejected');
      expect(rejected).toMatchObject({ offer_id: first.offer_id, offer_status: 'rejected' });
      const counter = await agent.counterOffer({ offer_id: second.offer_id, counter_offer_amount: 260_000 });
      expect(counter).toMatchObject({ offer_id: second.offer_id, counter_offer_status: 'pending' });
    });

    it('accepts an offer', async () => {
      const { offer_request_id: id } = await activeRequest();
      const offer = await offerOn(id);
      await expect(agent.decideOffer(offer.offer_id, 'accepted')).resolves.toMatchObject({
        offer_status: 'accepted',
      });
    });

    it('registers and then updates the webhook URL', async () => {
      const fresh = h.client({ apiKey: 'sandbox-agent2-key' });
      await expect(fresh.updateWebhook('https://hooks.example.test/a')).rejects.toMatchObject({
        code: 'NOT_FOUND',
      });
      await expect(fresh.registerWebhook('https://hooks.example.test/a')).resolves.toEqual({
        url: 'https://hooks.example.test/a',
      });
      await expect(fresh.updateWebhook('https://hooks.example.test/b')).resolves.toEqual({
        url: 'https://hooks.example.test/b',
      });
    });

    it('submits a buyer lead with a partner key', async () => {
      const { offer_request_id: id } = await activeRequest();
      const partner = h.client({ apiKey: 'sandbox-partner-key' });
      const lead = await partner.submitBuyerLead({
        first_name: 'Bea',
        last_name: 'Buyer',
        primary_email: 'bea@buyers.example',
        property_address: { offer_request_id: id },
      });
      expect(lead).toMatchObject({ offer_request_id: id, first_name: 'Bea', lead_id: expect.any(String) });
    });

    it('pushes a property to the marketplace', async () => {
      const record = await agent.createOfferRequest(offerRequestBody());
      const result = await agent.pushToMarketplace({
        request: { inventory_property_id: record!.inventory_property_id, expiration_date: null },
      });
      expect(result).toEqual({
        success: true,
        message: expect.any(String),
        inventory_property_id: record!.inventory_property_id,
      });
    });
  });

  describe('every error code', () => {
    const codeOf = (p: Promise<unknown>) =>
      p.then(
        () => 'resolved',
        (e: CashOfferError) => e,
      );

    it('INVALID_RECORD locally, naming the field, with nothing sent', async () => {
      await h.control('DELETE', '/calls');
      const body = offerRequestBody();
      body.property.StreetName = 'S'.repeat(57);
      const error = (await codeOf(agent.createOfferRequest(body))) as CashOfferError;
      expect(error).toBeInstanceOf(CashOfferError);
      expect(error.code).toBe('INVALID_RECORD');
      expect(error.message).toContain('property.StreetName is 57 characters; the service allows 50');
      expect(await h.calls()).toEqual([]);
    });

    it('INVALID_RECORD from the service, with its { error, message }', async () => {
      const error = (await codeOf(agent.listActiveOfferRequests({ sort: 'by_mood' }))) as CashOfferError;
      expect(error).toMatchObject({ code: 'INVALID_RECORD', status: 400, retryable: false });
      expect(error.serviceError).toEqual({
        error: 400,
        message: expect.stringContaining('sort must be one of'),
      });
      expect(error.violations?.[0]).toMatchObject({ field: 'sort' });
    });

    it('AUTH_FAILED for an unknown key (401) and a forbidden role (403)', async () => {
      const stranger = h.client({ apiKey: 'not-a-key', retry: { maxAttempts: 1 } });
      await expect(stranger.listOffers()).rejects.toMatchObject({ code: 'AUTH_FAILED', status: 401 });
      const { offer_request_id: id } = await activeRequest();
      await expect(
        agent.submitBuyerLead({
          first_name: 'A',
          last_name: 'B',
          primary_phone: '5125550100',
          property_address: { offer_request_id: id },
        }),
      ).rejects.toMatchObject({ code: 'AUTH_FAILED', status: 403 });
    });

    it('NOT_FOUND for an unknown request', async () => {
      await expect(
        agent.updateOfferRequest(987_654, { media: ['https://p.test/x.jpg'] }),
      ).rejects.toMatchObject({
        code: 'NOT_FOUND',
        status: 404,
        operation: 'PATCH /offer-requests/{id}',
      });
    });

    it('CONFLICT for deciding an offer twice', async () => {
      const { offer_request_id: id } = await activeRequest();
      const offer = await offerOn(id);
      await agent.decideOffer(offer.offer_id, 'rejected');
      await expect(agent.decideOffer(offer.offer_id, 'accepted')).rejects.toMatchObject({
        code: 'CONFLICT',
        status: 409,
      });
    });

    it('RATE_LIMITED once retries run out', async () => {
      await h.faults({ match: 'GET /offers', rateLimit: { requests: 5, retryAfterSeconds: 0 } });
      const impatient = h.client({ retry: { maxAttempts: 2, maxRateLimitedAttempts: 2, baseDelayMs: 1 } });
      await expect(impatient.listOffers()).rejects.toMatchObject({
        code: 'RATE_LIMITED',
        status: 429,
        retryable: true,
      });
      await h.control('DELETE', '/faults');
    });

    it('UNAVAILABLE for a failing GET', async () => {
      await h.faults({ match: 'GET /offers', errorRate: 1, errorStatus: 503 });
      const c = h.client({ retry: { maxAttempts: 2, baseDelayMs: 1 } });
      await expect(c.listOffers()).rejects.toMatchObject({
        code: 'UNAVAILABLE',
        status: 503,
        retryable: true,
      });
      await h.control('DELETE', '/faults');
    });

    it('OUTCOME_UNKNOWN for a create the service failed on, sent once', async () => {
      const { offer_request_id: id } = await activeRequest();
      const offer = await offerOn(id);
      await h.control('DELETE', '/calls');
      await h.faults({ match: 'POST /counter-offers', errorRate: 1, errorStatus: 500 });
      await expect(
        agent.counterOffer({ offer_id: offer.offer_id, counter_offer_amount: 1 }),
      ).rejects.toMatchObject({ code: 'OUTCOME_UNKNOWN', status: 500, retryable: false });
      await h.control('DELETE', '/faults');
      expect((await h.calls()).filter((c) => c.path.endsWith('/counter-offers'))).toHaveLength(1);
    });
  });
});

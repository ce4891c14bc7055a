import { RunningCashOfferSandbox } from '../../../sandbox/cash-offer';
import {
  AGENT,
  AGENT2,
  BUYER,
  PARTNER,
  activeRequest,
  buyerOffer,
  call,
  control,
  createBody,
  Json,
  startTestSandbox,
} from './sandbox.helpers';
import { waitFor } from '../../support/wait-for';

// Every endpoint of the spec, over real HTTP, with and without the trailing slash.
describe('Cash Offer sandbox: endpoints', () => {
  let sandbox: RunningCashOfferSandbox;
  beforeAll(async () => {
    sandbox = await startTestSandbox();
  });
  afterAll(() => sandbox.close());
  beforeEach(() => control(sandbox, 'POST', '/reset'));

  it('POST /offer-requests answers 201 with the full record (quickstart form)', async () => {
    const res = await call(
      sandbox,
      'POST',
      '/offer-requests/',
      createBody({ request: { test: true, offer_request_deal_type: 'wholesale' } }),
    );
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      requested_by_agent: AGENT.userId,
      submitted_by_user: AGENT.userId,
      offer_request_asking: 250_000,
      offer_request_status: 'in_review',
      offer_request_is_approved: false,
      offer_request_external_id: 'crm-deal-1',
      offer_request_deal_type: 'wholesale',
      test: true,
    });
    expect(Number.isInteger(res.body.offer_request_id)).toBe(true);
    expect(Number.isInteger(res.body.inventory_property_id)).toBe(true);
    expect(Date.parse(res.body.offer_requested_at)).not.toBeNaN();
  });

  it('POST /offer-requests/prelim counts buyers and buy boxes without storing anything', async () => {
    const dallas = await call(sandbox, 'POST', '/offer-requests/prelim', {
      inventory: { StateOrProvince: 'TX', PostalCode: '75201', ListPrice: 200_000, BedroomsTotal: 3 },
    });
    expect(dallas.status).toBe(200);
    expect(dallas.body.buyer_count).toBeGreaterThan(0);
    expect(dallas.body.buy_box_count).toBeGreaterThanOrEqual(dallas.body.buyer_count);
    const alaska = await call(sandbox, 'POST', '/offer-requests/prelim/', {
      inventory: { StateOrProvince: 'AK', PostalCode: '99501' },
    });
    expect(alaska.body).toEqual({ buyer_count: 0, buy_box_count: 0 });
    const pricey = await call(sandbox, 'POST', '/offer-requests/prelim', {
      inventory: { StateOrProvince: 'TX', PostalCode: '75201', ListPrice: 5_000_000 },
    });
    expect(pricey.body.buy_box_count).toBeLessThan(dallas.body.buy_box_count);
    const missing = await call(sandbox, 'POST', '/offer-requests/prelim', {
      inventory: { StateOrProvince: 'TX', StreetName: 'x' },
    });
    expect(missing.status).toBe(400);
    expect(missing.body.message).toContain('inventory.PostalCode is required');
    expect((await control(sandbox, 'GET', '/offer-requests')).body).toEqual([]);
  });

  it('PATCH /offer-requests/{id} updates listing-agent fields and adds media; other fields refused', async () => {
    const { offer_request_id: id } = await activeRequest(sandbox);
    const ok = await call(sandbox, 'PATCH', `/offer-requests/${id}/`, {
      property: { ListAgentFirstName: 'Jo', ListAgentEmail: 'jo@e2e.example', ListAgentDirectPhone: null },
      media: ['https://photos.example/1.jpg'],
    });
    expect(ok.status).toBe(204);
    expect(ok.body).toBeUndefined();
    const refused = await call(sandbox, 'PATCH', `/offer-requests/${id}`, {
      property: { StreetName: 'Oak', ListAgentLastName: 'Doe' },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain('property.StreetName cannot be changed after submission');
    const [stored] = (await control(sandbox, 'GET', '/offer-requests')).body;
    expect(stored.property).toMatchObject({
      ListAgentFirstName: 'Jo',
      ListAgentEmail: 'jo@e2e.example',
      ListAgentDirectPhone: null,
      StreetName: 'Elm Street',
    });
    expect(stored.property.ListAgentLastName).toBeUndefined();
    expect(stored.media.map((m: { url: string }) => m.url)).toEqual(['https://photos.example/1.jpg']);
  });

  it('PATCH /offer-requests/ (body form) adds photos', async () => {
    const { offer_request_id: id } = await activeRequest(sandbox);
    for (const path of ['/offer-requests/', '/offer-requests']) {
      const res = await call(sandbox, 'PATCH', path, {
        offer_request_id: id,
        media: [`https://photos.example${path}.jpg`],
      });
      expect(res.status).toBe(204);
    }
    const missing = await call(sandbox, 'PATCH', '/offer-requests/', { offer_request_id: id });
    expect(missing.status).toBe(400);
    expect((await control(sandbox, 'GET', '/offer-requests')).body[0].media).toHaveLength(2);
  });

  it('GET /active-offer-requests pages all accounts’ active requests; assumptions only for buyers', async () => {
    await control(sandbox, 'POST', '/seed-active', { count: 25, ownerKey: AGENT2.key });
    const mine = await activeRequest(sandbox, AGENT.key, { media: ['https://photos.example/front.jpg'] });
    await call(sandbox, 'POST', '/offer-requests', createBody()); // in_review: not listed
    const first = await call(sandbox, 'GET', '/active-offer-requests');
    expect(first.status).toBe(200);
    expect(first.body).toHaveLength(10);
    expect(first.body[0].request.offer_request_id).toBe(mine.offer_request_id); // newest first
    expect(first.body[0].request.offer_request_external_id).toBe('crm-deal-1'); // the owner sees it
    expect(first.body[1].request.offer_request_external_id).toBeUndefined(); // not for others
    expect(first.body[0].assumptions).toBeUndefined();
    const ids: number[] = [];
    for (let offset = 0; ; offset += 7) {
      const page = await call(
        sandbox,
        'GET',
        `/active-offer-requests/?limit=7&offset=${offset}&sort=offer_request_id.asc`,
      );
      if (page.body.length === 0) break;
      ids.push(
        ...page.body.map((i: { request: { offer_request_id: number } }) => i.request.offer_request_id),
      );
    }
    expect(ids).toHaveLength(26);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    const byAsking = await call(
      sandbox,
      'GET',
      '/active-offer-requests?limit=100&sort=offer_request_asking.desc',
    );
    const asks = byAsking.body.map(
      (i: { request: { offer_request_asking: number } }) => i.request.offer_request_asking,
    );
    expect([...asks].sort((a, b) => b - a)).toEqual(asks);
    const asBuyer = await call(sandbox, 'GET', '/active-offer-requests?limit=1', undefined, BUYER.key);
    expect(asBuyer.body[0].assumptions).toEqual([]);
    expect(asBuyer.body[0].media[0]).toMatch(/\/media\/.+\?expires=\d+&sig=/);
  });

  it('GET /offers lists offers on the caller’s requests, with commission amounts and filters', async () => {
    const { offer_request_id: id } = await activeRequest(sandbox);
    const other = await activeRequest(sandbox, AGENT2.key);
    await buyerOffer(sandbox, id, { offer_amount: 300_000, listing_broker_commission_pct: 2 });
    await buyerOffer(sandbox, id);
    await buyerOffer(sandbox, other.offer_request_id);
    const res = await call(sandbox, 'GET', '/offers/');
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(2);
    expect(res.body[0]).toMatchObject({
      offer_request_id: id,
      offer_request_external_id: 'crm-deal-1',
      offer_amount: 300_000,
      buyer_broker_commission_pct: 3,
      buyer_broker_commission_amt: 9000,
      listing_broker_commission_pct: 2,
      listing_broker_commission_amt: 6000,
      offer_status: 'active',
    });
    expect((await call(sandbox, 'GET', `/offers?offer_request_id=${other.offer_request_id}`)).body).toEqual(
      [],
    );
    expect((await call(sandbox, 'GET', '/offers?status=accepted')).body).toEqual([]);
    expect((await call(sandbox, 'GET', '/offers?limit=1&offset=1')).body).toHaveLength(1);
  });

  it('PATCH /offers and /offers/ accept or reject, answering the offer', async () => {
    const { offer_request_id: id } = await activeRequest(sandbox);
    const a = await buyerOffer(sandbox, id);
    const rejected = await call(sandbox, 'PATCH', '/offers/', {
      offer_id: a.offer_id,
      offer_status: 'rejected',
    });
    expect(rejected.status).toBe(200);
    expect(rejected.body).toMatchObject({ offer_id: a.offer_id, offer_status: 'rejected' });
    expect(rejected.body.offer_decided_at).not.toBeNull();
    const b = await buyerOffer(sandbox, id);
    const accepted = await call(sandbox, 'PATCH', '/offers', {
      offer_id: b.offer_id,
      offer_status: 'accepted',
    });
    expect(accepted.body.offer_status).toBe('accepted');
    const bad = await call(sandbox, 'PATCH', '/offers', { offer_id: b.offer_id, offer_status: 'maybe' });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('offer_status is "maybe"; allowed values are accepted, rejected');
  });

  it('POST /counter-offers answers 201 with the counter; the offer becomes countered', async () => {
    const { offer_request_id: id } = await activeRequest(sandbox);
    const offer = await buyerOffer(sandbox, id, {
      listing_broker_commission_pct: 2.5,
      buyer_pays_listing_broker_commission: true,
    });
    const res = await call(sandbox, 'POST', '/counter-offers/', {
      offer_id: offer.offer_id,
      counter_offer_amount: 215_000,
      counter_offer_memo: 'meet me',
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      offer_id: offer.offer_id,
      offer_request_id: id,
      counter_offer_status: 'pending',
      counter_offer_amount: 215_000,
      listing_broker_commission_pct: 2.5,
      buyer_pays_listing_broker_commission: true,
    });
    expect(Number.isInteger(res.body.counter_offer_id)).toBe(true);
    expect((await call(sandbox, 'GET', '/offers')).body[0].offer_status).toBe('countered');
    const missing = await call(sandbox, 'POST', '/counter-offers', { offer_id: offer.offer_id });
    expect(missing.status).toBe(400);
    expect(missing.body.message).toContain('counter_offer_amount is required');
    const status = await call(sandbox, 'POST', '/counter-offers', {
      offer_id: offer.offer_id,
      counter_offer_amount: 1,
      counter_offer_status: 'accepted',
    });
    expect(status.status).toBe(400);
  });

  it('POST /wh registers (201) and PATCH /wh replaces (200) the webhook URL', async () => {
    const post = await call(sandbox, 'POST', '/wh/', { url: 'http://127.0.0.1:9/one' });
    expect(post).toMatchObject({ status: 201, body: { url: 'http://127.0.0.1:9/one' } });
    const patch = await call(sandbox, 'PATCH', '/wh', { url: 'http://127.0.0.1:9/two' });
    expect(patch).toMatchObject({ status: 200, body: { url: 'http://127.0.0.1:9/two' } });
    const bad = await call(sandbox, 'PATCH', '/wh', { url: 'not a url' });
    expect(bad.status).toBe(400);
    expect((await control(sandbox, 'GET', '/webhooks')).body).toEqual({
      [AGENT.key]: 'http://127.0.0.1:9/two',
    });
  });

  it('POST /buyer/lead ties a lead to an active request and its property', async () => {
    const { offer_request_id: id, inventory_property_id: propertyId } = await activeRequest(sandbox);
    const body = {
      first_name: 'Ann',
      last_name: 'Lee',
      primary_email: 'ann@e2e.example',
      property_address: { offer_request_id: id, inventory_property_id: propertyId },
    };
    for (const key of [PARTNER.key, BUYER.key]) {
      const res = await call(sandbox, 'POST', '/buyer/lead/', body, key);
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        first_name: 'Ann',
        offer_request_id: id,
        inventory_property_id: propertyId,
      });
      expect(res.body.lead_id).toMatch(/^[0-9a-f-]{36}$/);
    }
    const leads = (await control(sandbox, 'GET', '/buyer-leads')).body;
    expect(leads.map((l: { api_partner_user_id: string }) => l.api_partner_user_id)).toEqual([
      PARTNER.userId,
      BUYER.userId,
    ]);
    const noContact = await call(
      sandbox,
      'POST',
      '/buyer/lead',
      { first_name: 'A', last_name: 'B', property_address: { offer_request_id: id } },
      PARTNER.key,
    );
    expect(noContact.status).toBe(400);
    expect(noContact.body.message).toContain('primary_email or primary_phone is required');
    const wrongProperty = await call(
      sandbox,
      'POST',
      '/buyer/lead',
      { ...body, property_address: { offer_request_id: id, inventory_property_id: 1 } },
      PARTNER.key,
    );
    expect(wrongProperty.status).toBe(400);
    await control(sandbox, 'POST', `/offer-requests/${id}/expire`);
    expect((await call(sandbox, 'POST', '/buyer/lead', body, PARTNER.key)).status).toBe(409);
  });

  it('POST /push-to-marketplace answers at once and activates the request in the background', async () => {
    const created = await call(sandbox, 'POST', '/offer-requests', createBody());
    const expiration = new Date(Date.now() + 5 * 24 * 3600 * 1000).toISOString();
    const res = await call(sandbox, 'POST', '/push-to-marketplace/', {
      request: { inventory_property_id: created.body.inventory_property_id, expiration_date: expiration },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      success: true,
      inventory_property_id: created.body.inventory_property_id,
    });
    const active = await waitFor(
      async (): Promise<Json> => {
        const page = await call(sandbox, 'GET', '/active-offer-requests');
        return page.body.length === 1 ? page.body[0] : undefined;
      },
      { what: 'the pushed request in the active list' },
    );
    expect(active.request.offer_request_id).toBe(created.body.offer_request_id);
    const [stored] = (await control(sandbox, 'GET', '/offer-requests')).body;
    expect(stored).toMatchObject({
      offer_request_status: 'active',
      offer_request_is_approved: true,
      offer_request_expires_at: expiration,
    });
    const past = await call(sandbox, 'POST', '/push-to-marketplace', {
      request: {
        inventory_property_id: created.body.inventory_property_id,
        expiration_date: '2001-01-01T00:00:00Z',
      },
    });
    expect(past.status).toBe(400);
  });
});

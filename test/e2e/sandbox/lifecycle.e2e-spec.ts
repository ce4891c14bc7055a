import { RunningCashOfferSandbox } from '../../../sandbox/cash-offer';
import {
  AGENT,
  WebhookReceiver,
  activeRequest,
  buyerOffer,
  call,
  control,
  createBody,
  Json,
  startTestSandbox,
} from './sandbox.helpers';
import { waitFor } from '../../support/wait-for';

const DAY = 24 * 3600 * 1000;

// The lifecycle of docs/spec-decisions.md, with the events a webhook receiver really gets.
describe('Cash Offer sandbox: lifecycle and events', () => {
  let sandbox: RunningCashOfferSandbox;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    sandbox = await startTestSandbox();
  });
  afterAll(() => sandbox.close());
  beforeEach(async () => {
    await control(sandbox, 'POST', '/reset');
    receiver = await new WebhookReceiver().start();
    await call(sandbox, 'POST', '/wh', { url: receiver.url });
  });
  afterEach(() => receiver.stop());

  const offersNow = async (): Promise<Json> => (await call(sandbox, 'GET', '/offers')).body;
  const requestNow = async (id: number): Promise<Json> =>
    (await control(sandbox, 'GET', '/offer-requests')).body.find(
      (r: { offer_request_id: number }) => r.offer_request_id === id,
    );
  const emails = async (): Promise<Json> => (await control(sandbox, 'GET', '/emails')).body;

  it('in_review -> processing -> active on approval: offer_request_approved event and email', async () => {
    const created = await call(sandbox, 'POST', '/offer-requests', createBody());
    const id = created.body.offer_request_id;
    expect((await control(sandbox, 'POST', `/offer-requests/${id}/process`)).body.offer_request_status).toBe(
      'processing',
    );
    const approved = await control(sandbox, 'POST', `/offer-requests/${id}/approve`);
    expect(approved.body).toMatchObject({ offer_request_status: 'active', offer_request_is_approved: true });
    expect(approved.body.offer_request_decided_at).not.toBeNull();
    const [event] = await waitFor(
      () =>
        receiver.events('offer_request_approved').length
          ? receiver.events('offer_request_approved')
          : undefined,
      { what: 'the offer_request_approved webhook' },
    );
    expect(event).toEqual({
      event: 'offer_request_approved',
      offer_request_id: id,
      offer_request_status: 'receiving_offers',
    });
    expect(await emails()).toEqual([
      expect.objectContaining({
        kind: 'offer_request_approved',
        to: 'listing@e2e.example',
        offer_request_id: id,
      }),
    ]);
  });

  it('deny ends a request; approval emails go to the account when ListAgentEmail is absent', async () => {
    const a = await call(sandbox, 'POST', '/offer-requests', createBody());
    expect(
      (await control(sandbox, 'POST', `/offer-requests/${a.body.offer_request_id}/deny`)).body
        .offer_request_status,
    ).toBe('denied');
    const b = await call(
      sandbox,
      'POST',
      '/offer-requests',
      createBody({ property: { ListAgentEmail: null } }),
    );
    await control(sandbox, 'POST', `/offer-requests/${b.body.offer_request_id}/approve`);
    expect((await emails())[0].to).toBe(AGENT.email);
  });

  it('a buyer offer: active, new_offer event with the external id echoed, email', async () => {
    const { offer_request_id: id } = await activeRequest(sandbox);
    const offer = await buyerOffer(sandbox, id, { offer_amount: 210_000, offer_memo: 'quick close' });
    expect(offer.offer_status).toBe('active');
    const [event] = await waitFor(
      () => (receiver.events('new_offer').length ? receiver.events('new_offer') : undefined),
      { what: 'the new_offer webhook' },
    );
    expect(event).toMatchObject({
      event: 'new_offer',
      offer_id: offer.offer_id,
      offer_request_id: id,
      offer_amount: 210_000,
      offer_memo: 'quick close',
      offer_status: 'active',
      buyer_broker_commission_pct: 3,
      offer_request_external_id: 'crm-deal-1',
      viewed: false,
      offer_feedback: null,
    });
    for (const field of [
      'created_at',
      'offer_expires',
      'earnest_money',
      'inspection_period',
      'external_id',
      'test',
      'offer_is_counter_offer',
    ])
      expect(event).toHaveProperty(field);
    expect((await emails()).map((e: { kind: string }) => e.kind)).toEqual([
      'offer_request_approved',
      'new_offer',
    ]);
  });

  it('accepting one offer rejects every other offer and counter and puts the request under contract', async () => {
    const { offer_request_id: id } = await activeRequest(sandbox);
    const a = await buyerOffer(sandbox, id);
    const b = await buyerOffer(sandbox, id);
    const c = await buyerOffer(sandbox, id);
    const counter = await call(sandbox, 'POST', '/counter-offers', {
      offer_id: c.offer_id,
      counter_offer_amount: 240_000,
    });
    await call(sandbox, 'PATCH', '/offers', { offer_id: a.offer_id, offer_status: 'accepted' });
    const statuses = Object.fromEntries(
      (await offersNow()).map((o: { offer_id: number; offer_status: string }) => [
        o.offer_id,
        o.offer_status,
      ]),
    );
    expect(statuses).toEqual({
      [a.offer_id]: 'accepted',
      [b.offer_id]: 'rejected',
      [c.offer_id]: 'rejected',
    });
    const [storedCounter] = (await control(sandbox, 'GET', '/counter-offers')).body;
    expect(storedCounter).toMatchObject({
      counter_offer_id: counter.body.counter_offer_id,
      counter_offer_status: 'rejected',
    });
    expect((await requestNow(id)).offer_request_status).toBe('under_contract');
    expect((await call(sandbox, 'GET', '/active-offer-requests')).body).toEqual([]);
    expect((await emails()).find((e: { kind: string }) => e.kind === 'offer_accepted')).toMatchObject({
      to: 'acquisitions@cash-offer.sandbox',
      offer_id: a.offer_id,
    });
    expect((await control(sandbox, 'POST', `/offer-requests/${id}/close`)).body.offer_request_status).toBe(
      'closed',
    );
  });

  it('the buyer accepts a counter: a new accepted offer on its terms, others rejected, new_offer sent', async () => {
    const { offer_request_id: id } = await activeRequest(sandbox);
    const a = await buyerOffer(sandbox, id, { listing_broker_commission_pct: 3 });
    const b = await buyerOffer(sandbox, id);
    const counter = await call(sandbox, 'POST', '/counter-offers', {
      offer_id: a.offer_id,
      counter_offer_amount: 230_000,
      listing_broker_commission_pct: 2,
      counter_inspection_period: 5,
      counter_offer_terms: { appliances: 'included' },
    });
    const res = await control(sandbox, 'POST', `/counter-offers/${counter.body.counter_offer_id}/accept`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      offer_status: 'accepted',
      offer_is_counter_offer: true,
      counter_offer_id: counter.body.counter_offer_id,
      offer_amount: 230_000,
      listing_broker_commission_pct: 2,
      listing_broker_commission_amt: 4600,
      inspection_period: 5,
      additional_terms: { appliances: 'included' },
    });
    const statuses = Object.fromEntries(
      (await offersNow()).map((o: { offer_id: number; offer_status: string }) => [
        o.offer_id,
        o.offer_status,
      ]),
    );
    expect(statuses).toEqual({
      [a.offer_id]: 'rejected',
      [b.offer_id]: 'rejected',
      [res.body.offer_id]: 'accepted',
    });
    expect((await requestNow(id)).offer_request_status).toBe('under_contract');
    const events = await waitFor(
      () => (receiver.events('new_offer').length === 3 ? receiver.events('new_offer') : undefined),
      { what: 'three new_offer webhooks' },
    );
    expect(events[2]).toMatchObject({
      offer_id: res.body.offer_id,
      offer_status: 'accepted',
      offer_is_counter_offer: true,
    });
    expect(
      (await control(sandbox, 'POST', `/counter-offers/${counter.body.counter_offer_id}/reject`)).status,
    ).toBe(409);
  });

  it('the buyer rejects a counter: the UPDATE callback, the countered offer rejected', async () => {
    const { offer_request_id: id } = await activeRequest(sandbox);
    const a = await buyerOffer(sandbox, id);
    const counter = await call(sandbox, 'POST', '/counter-offers', {
      offer_id: a.offer_id,
      counter_offer_amount: 260_000,
    });
    const res = await control(sandbox, 'POST', `/counter-offers/${counter.body.counter_offer_id}/reject`);
    expect(res.body.counter_offer_status).toBe('rejected');
    const [update] = await waitFor(
      () => (receiver.events('UPDATE').length ? receiver.events('UPDATE') : undefined),
      { what: 'the UPDATE webhook' },
    );
    expect(update).toMatchObject({
      event: 'UPDATE',
      update_type: 'counter_offer_rejected',
      counter_offer_id: counter.body.counter_offer_id,
      offer_id: a.offer_id,
      offer_request_id: id,
      offer_request_external_id: 'crm-deal-1',
      counter_offer_status: 'rejected',
    });
    expect((await offersNow())[0].offer_status).toBe('rejected');
    expect((await requestNow(id)).offer_request_status).toBe('active');
  });

  it('rejecting a countered offer withdraws its pending counter', async () => {
    const { offer_request_id: id } = await activeRequest(sandbox);
    const a = await buyerOffer(sandbox, id);
    const counter = await call(sandbox, 'POST', '/counter-offers', {
      offer_id: a.offer_id,
      counter_offer_amount: 250_000,
    });
    const res = await call(sandbox, 'PATCH', '/offers', { offer_id: a.offer_id, offer_status: 'rejected' });
    expect(res.body.offer_status).toBe('rejected');
    const [stored] = (await control(sandbox, 'GET', '/counter-offers')).body;
    expect(stored).toMatchObject({
      counter_offer_id: counter.body.counter_offer_id,
      counter_offer_status: 'rejected',
    });
    expect(
      (await control(sandbox, 'POST', `/counter-offers/${counter.body.counter_offer_id}/accept`)).status,
    ).toBe(409);
  });

  it('offers and requests expire by the sandbox clock; renewal brings a request back', async () => {
    const { offer_request_id: id } = await activeRequest(sandbox);
    const shortOffer = await buyerOffer(sandbox, id, {
      offer_expires: new Date(Date.now() + 2 * DAY).toISOString(),
    });
    await buyerOffer(sandbox, id);
    const before = (await control(sandbox, 'GET', '/clock')).body.now;
    const advanced = await control(sandbox, 'POST', '/clock/advance', { ms: 3 * DAY });
    expect(Date.parse(advanced.body.now) - Date.parse(before)).toBeGreaterThanOrEqual(3 * DAY);
    const statuses = (await offersNow()).map((o: { offer_id: number; offer_status: string }) => [
      o.offer_id,
      o.offer_status,
    ]);
    expect(statuses[0]).toEqual([shortOffer.offer_id, 'expired']);
    expect(statuses[1][1]).toBe('active');
    expect(
      (await call(sandbox, 'PATCH', '/offers', { offer_id: shortOffer.offer_id, offer_status: 'accepted' }))
        .status,
    ).toBe(409);
    await control(sandbox, 'POST', '/clock/advance', { ms: 30 * DAY });
    expect((await requestNow(id)).offer_request_status).toBe('expired');
    expect((await call(sandbox, 'GET', '/active-offer-requests')).body).toEqual([]);
    expect((await control(sandbox, 'POST', `/offer-requests/${id}/renew`)).body.offer_request_status).toBe(
      'active',
    );
    expect((await call(sandbox, 'GET', '/active-offer-requests')).body).toHaveLength(1);
    expect((await control(sandbox, 'POST', `/offer-requests/${id}/expire`)).body.offer_request_status).toBe(
      'expired',
    );
  });

  it('autopilot approves new requests and simulated buyers make offers', async () => {
    const created = await call(sandbox, 'POST', '/offer-requests', createBody());
    await control(sandbox, 'PUT', '/autopilot', { enabled: true, intervalMs: 20 });
    try {
      const offers = await waitFor(
        async (): Promise<Json> => {
          const list = await offersNow();
          return list.length >= 2 ? list : undefined;
        },
        { what: 'two offers from the simulated buyers' },
      );
      expect(offers[0].offer_request_id).toBe(created.body.offer_request_id);
      expect((await requestNow(created.body.offer_request_id)).offer_request_is_approved).toBe(true);
      await waitFor(() => receiver.events('new_offer').length >= 2, { what: 'two new_offer webhooks' });
    } finally {
      await control(sandbox, 'PUT', '/autopilot', { enabled: false });
    }
    expect((await control(sandbox, 'GET', '/autopilot')).body.enabled).toBe(false);
  });
});

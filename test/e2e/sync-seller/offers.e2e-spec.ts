import { DEAL } from '../../../src/sync/common/listing-deal.properties';
import { OFFER } from '../../../src/sync/offers/offer-record.properties';
import { startSyncApp, type SyncTestApp } from '../../support/sync-app';
import { DEAL_PROPS, SellerFlowSteps } from '../../support/sync-flows';

describe('offers: every offer becomes one CRM offer record', () => {
  let t: SyncTestApp;
  let steps: SellerFlowSteps;

  beforeAll(async () => {
    t = await startSyncApp();
    steps = new SellerFlowSteps(t);
  });

  afterAll(async () => {
    await t.close();
  });

  it('shows the approval on the deal and a buyer offer within one processing cycle of its webhook', async () => {
    const { dealId, contactId, requestId } = await steps.activeRequest();
    expect((await steps.agent.deal(dealId, DEAL_PROPS)).properties[DEAL.status]).toBe('receiving_offers');

    const offer = await steps.sandbox.makeOffer(requestId, {
      offer_amount: 380_000,
      listing_broker_commission_pct: 2.5,
    });
    await steps.applyEvents(1);

    const record = await steps.offerRecord(offer.offer_id);
    expect(record).toBeDefined();
    expect(steps.stageKey(record!)).toBe('incoming');
    expect(record!.properties).toMatchObject({
      [OFFER.amount]: '380000',
      [OFFER.status]: 'active',
      [OFFER.requestRef]: String(requestId),
      [OFFER.buyerBrokerAmt]: '11400',
      [OFFER.listingBrokerAmt]: '9500',
      [OFFER.sellerNet]: '359100',
      [OFFER.buyerCost]: '380000',
      [OFFER.inspectionPeriod]: String(offer.inspection_period),
      [OFFER.earnestMoney]: String(offer.earnest_money),
    });
    expect(record!.associations?.deal).toContain(dealId);
    expect(record!.associations?.contact).toContain(contactId);
    const deal = await steps.agent.deal(dealId, DEAL_PROPS);
    expect(deal.properties).toMatchObject({ [DEAL.offerCount]: '1', [DEAL.bestOffer]: '380000' });
  });

  it('the same webhook delivered five times produces one CRM record', async () => {
    const { requestId } = await steps.activeRequest();
    // The service's own delivery is dropped; the test delivers the same body five times.
    await steps.sandbox.faults({ webhooks: { dropRate: 1 }, seed: 5 });
    const before = t.hubspot.state.count('deals');
    const offer = await steps.sandbox.makeOffer(requestId, { offer_amount: 300_000 });
    await steps.sandbox.clearFaults();
    const body = JSON.stringify({ event: 'new_offer', ...offer });
    for (let i = 0; i < 5; i++) {
      const res = await fetch(t.hookUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      expect(res.status).toBeLessThan(300);
    }
    const depth = await t.ledger.inbox.depth('acme');
    expect(depth.pending).toBe(1);
    await t.run('inbox-drain');
    expect(t.hubspot.state.count('deals')).toBe(before + 1);
    expect(await steps.offerRecord(offer.offer_id)).toBeDefined();
  });

  it('reconciles offers a webhook never delivered; unchanged offers cost no CRM write', async () => {
    const { dealId, requestId } = await steps.activeRequest();
    await steps.sandbox.faults({ webhooks: { dropRate: 1 }, seed: 3 });
    const dropped = await steps.sandbox.makeOffer(requestId, { offer_amount: 390_000 });
    await steps.sandbox.clearFaults();
    expect(await steps.offerRecord(dropped.offer_id)).toBeUndefined();

    const first = await t.run('offers-reconcile');
    expect(first.status).toBe('succeeded');
    expect(first.counts.created).toBeGreaterThanOrEqual(1);
    expect(await steps.offerRecord(dropped.offer_id)).toBeDefined();
    expect((await steps.agent.deal(dealId, DEAL_PROPS)).properties[DEAL.bestOffer]).toBe('390000');

    const second = await t.run('offers-reconcile');
    expect(second.counts).toMatchObject({ created: 0, updated: 0, failed: 0 });
    expect(second.counts.unchanged).toBe(second.counts.read);
  });

  it("a pass whose offers cannot be read still shows its requests' statuses from the active list, and fails", async () => {
    const { dealId, requestId } = await steps.activeRequest();
    // The service reopens the request with no event; its offers cannot be read for now.
    await steps.sandbox.moveRequest(requestId, 'active');
    await steps.sandbox.faults({ match: 'GET /offers', errorRate: 1, errorStatus: 422 });
    try {
      const run = await t.run('offers-reconcile');
      expect(run.status).toBe('failed');
      expect(run.error).toContain('GET /offers');
    } finally {
      await steps.sandbox.clearFaults();
    }
    expect((await steps.agent.deal(dealId, DEAL_PROPS)).properties[DEAL.status]).toBe('active');
    expect((await t.run('offers-reconcile')).status).toBe('succeeded');
  });
});

import { DEAL } from '../../../src/sync/common/listing-deal.properties';
import { OFFER } from '../../../src/sync/offers/offer-record.properties';
import { CRM_ROLE } from '../../../src/crm';
import { NEUTRAL_LISTING, NeutralSellerSteps } from '../../support/crm-agent';
import { FLOW_TARGETS, startSyncApp, type SyncTestApp } from '../../support/sync-app';

// The seller-side flows, the same test for every CRM: only the world behind the agent changes.
describe.each(FLOW_TARGETS)('seller flows against %s, ledger on %s', (kind, engine) => {
  let t: SyncTestApp;
  let steps: NeutralSellerSteps;

  beforeAll(async () => {
    t = await startSyncApp(kind, { engine });
    steps = new NeutralSellerSteps(t);
  });

  afterAll(async () => {
    await t?.close();
  });

  const requestsFor = async (dealId: string) =>
    (await steps.sandbox.requests()).filter((r) => r.offer_request_external_id === dealId);
  const decide = async () => {
    expect((await t.run('crm-changes')).status).toBe('succeeded');
    expect((await t.run('outbox-drain')).status).toBe('succeeded');
  };

  it('an invalid listing deal is told why and not sent; fixed, it is sent once and written back', async () => {
    const { agent } = steps;
    const { dealId } = await agent.listingDeal({ ...NEUTRAL_LISTING, listing_street_name: 'x'.repeat(57) });
    await agent.requestCashOffer(dealId);
    expect(await t.run('crm-changes')).toMatchObject({ status: 'succeeded', counts: { read: 1, failed: 1 } });
    expect((await agent.deal(dealId)).properties[DEAL.syncError]).toContain(
      'property.StreetName is 57 characters; the service allows 50 (deal property listing_street_name)',
    );
    await t.run('outbox-drain');
    expect(await requestsFor(dealId)).toHaveLength(0);

    await agent.update(dealId, { listing_street_name: 'Oak Street' });
    await t.run('crm-changes');
    await t.run('outbox-drain');
    const sent = await requestsFor(dealId);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ offer_request_asking: 425000 });
    const deal = await agent.deal(dealId);
    expect(deal.properties[DEAL.requestId]).toBe(String(sent[0].offer_request_id));
    expect(deal.properties[DEAL.syncError] ?? '').toBe('');

    // Nothing changed: another cycle sends nothing.
    await t.run('crm-changes');
    await t.run('outbox-drain');
    expect(await requestsFor(dealId)).toHaveLength(1);
  });

  it('approval and a buyer offer reach the CRM: one offer record, linked, with the summary on the deal', async () => {
    const { dealId, contactId, requestId } = await steps.activeRequest();
    expect((await steps.agent.deal(dealId)).properties[DEAL.status]).toBe('receiving_offers');
    const before = t.world.countDeals();
    const offer = await steps.sandbox.makeOffer(requestId, {
      offer_amount: 380_000,
      listing_broker_commission_pct: 2.5,
    });
    await steps.applyEvents(1);
    expect(t.world.countDeals()).toBe(before + 1);
    const record = await steps.agent.offerRecord(offer.offer_id);
    expect(record).toBeDefined();
    expect(steps.agent.stageKey(record!)).toBe('incoming');
    expect(record!.properties).toMatchObject({
      [CRM_ROLE.name]: `Cash offer ${offer.offer_id}: $380,000`,
      [CRM_ROLE.amount]: '380000',
      [OFFER.amount]: '380000',
      [OFFER.status]: 'active',
      [OFFER.requestRef]: String(requestId),
      [OFFER.listingBrokerAmt]: '9500',
      [OFFER.sellerNet]: '359100',
    });
    expect(record!.associations?.deal).toContain(dealId);
    expect(record!.associations?.contact).toContain(contactId);
    expect((await steps.agent.deal(dealId)).properties).toMatchObject({
      [DEAL.offerCount]: '1',
      [DEAL.bestOffer]: '380000',
    });

    // Once reconciled, unchanged offers cost no CRM write.
    await t.run('offers-reconcile');
    const again = await t.run('offers-reconcile');
    expect(again.counts).toMatchObject({ created: 0, updated: 0, failed: 0 });
  });

  // The CRM failing the association calls (503) while the offer record's create goes through.
  const associationsFail = (on: boolean) =>
    t.world.faults(
      on
        ? {
            errorRate: 1,
            errorStatus: 503,
            match: kind === 'hubspot' ? 'POST /crm/v4/associations/' : 'PUT /deals/',
          }
        : { errorRate: 0, match: null },
    );

  // The ledger engine plays no part here (and the CRM's retries take seconds): on SQLite only.
  (engine === 'sqlite' ? it : it.skip)(
    'a new offer record the CRM could not associate for now (an outage) is associated by the next pass',
    async () => {
      const { dealId, contactId, requestId } = await steps.activeRequest();
      const offer = await steps.sandbox.makeOffer(requestId, { offer_amount: 333_000 });
      await associationsFail(true);
      try {
        await steps.applyEvents(1);
      } finally {
        await associationsFail(false);
      }
      const alone = (await steps.agent.offerRecord(offer.offer_id))!;
      expect(alone.associations?.deal ?? []).not.toContain(dealId);

      expect((await t.run('offers-reconcile')).status).toBe('succeeded');
      const record = (await steps.agent.offerRecord(offer.offer_id))!;
      expect(record.id).toBe(alone.id);
      expect(record.associations?.deal).toContain(dealId);
      expect(record.associations?.contact).toContain(contactId);
      expect(steps.agent.stageKey(record)).toBe('incoming');
      // Linked once associated: the history tells of the record shown then, once.
      const shown = (await t.ledger.history.list(`offer:${offer.offer_id}`, 'acme')).filter(
        (e) => e.kind === 'record_shown',
      );
      expect(shown).toHaveLength(1);
      // The event that met the outage is tried again once its back-off passes: no second record.
      const records = t.world.countDeals();
      await t.advanceClock(5 * 60_000);
      await t.run('inbox-drain');
      expect(await t.ledger.inbox.depth('acme')).toMatchObject({ pending: 0, failed: 0, dead: 0 });
      expect(t.world.countDeals()).toBe(records);
      expect((await steps.agent.offerRecord(offer.offer_id))!.id).toBe(alone.id);
    },
  );

  // HubSpot's batch upsert is retried after a 5xx; one that places a new record's first stage is not:
  // the agent may have moved the record in between (readings sweep 1450 lost a counter so).
  (kind === 'hubspot' && engine === 'sqlite' ? it : it.skip)(
    "a new record's create whose answer HubSpot lost is not sent again over the agent's move",
    async () => {
      const upserts = async () => {
        const res = await fetch(`${t.world.url}/__control/requests`);
        const { requests } = (await res.json()) as { requests: { method: string; path: string }[] };
        return requests.filter((r) => r.method === 'POST' && r.path.endsWith('/deals/batch/upsert')).length;
      };
      const { requestId } = await steps.activeRequest();
      const offer = await steps.sandbox.makeOffer(requestId, { offer_amount: 344_000 });
      const before = await upserts();
      await t.world.faults({ errorAfterCommitRate: 1, match: 'POST /crm/v3/objects/deals/batch/upsert' });
      try {
        await steps.applyEvents(1);
      } finally {
        await t.world.faults({ errorAfterCommitRate: 0, match: null });
      }
      // Made once and not sent again: the event waits to be tried again.
      expect((await upserts()) - before).toBe(1);
      const record = (await steps.agent.offerRecord(offer.offer_id))!;
      expect(steps.agent.stageKey(record)).toBe('incoming');
      // The agent moves it before the daemon hears back; the event's next try leaves it there.
      await steps.agent.moveOffer(record.id, 'reject_requested');
      await t.advanceClock(2 * 60_000);
      await t.run('inbox-drain');
      expect(await t.ledger.inbox.depth('acme')).toMatchObject({ pending: 0, failed: 0 });
      const after = (await steps.agent.offerRecord(offer.offer_id))!;
      expect(after.id).toBe(record.id);
      expect(steps.agent.stageKey(after)).toBe('reject_requested');
    },
  );

  it('an accept made in the CRM is sent once and the cascade shows on every offer record', async () => {
    const { dealId, requestId } = await steps.activeRequest();
    const a = await steps.sandbox.makeOffer(requestId, { offer_amount: 350_000 });
    const b = await steps.sandbox.makeOffer(requestId, { offer_amount: 360_000 });
    await steps.applyEvents(2);
    const recordA = await steps.agent.offerRecord(a.offer_id);
    await steps.agent.moveOffer(recordA!.id, 'accept_requested');
    await decide();
    const accepted = await steps.agent.offerRecord(a.offer_id);
    expect(steps.agent.stageKey(accepted!)).toBe('accepted');
    expect(accepted!.properties[OFFER.status]).toBe('accepted');
    const rejected = await steps.agent.offerRecord(b.offer_id);
    expect(steps.agent.stageKey(rejected!)).toBe('rejected');
    expect((await steps.agent.deal(dealId)).properties).toMatchObject({
      [DEAL.status]: 'under_contract',
      [DEAL.bestOffer]: '350000',
    });
    // Deciding again is a message on the record, not a second call.
    await steps.agent.moveOffer(accepted!.id, 'reject_requested');
    await decide();
    const twice = await steps.agent.offerRecord(a.offer_id);
    expect(twice!.properties[OFFER.decisionError]).toContain('was already accepted');
    expect(steps.agent.stageKey(twice!)).toBe('accepted');
  });

  it('a counter filled in the CRM is sent once; the buyer accepting it shows as countered and accepted', async () => {
    const { requestId } = await steps.activeRequest();
    const offer = await steps.sandbox.makeOffer(requestId, { offer_amount: 360_000 });
    await steps.applyEvents(1);
    const record = await steps.agent.offerRecord(offer.offer_id);
    await steps.agent.moveOffer(record!.id, 'counter_requested', {
      cash_offer_counter_memo: 'Meet in the middle',
    });
    await decide();
    expect((await steps.agent.offerRecord(offer.offer_id))!.properties[OFFER.decisionError]).toContain(
      'counter_offer_amount is required (offer record property cash_offer_counter_amount)',
    );
    await steps.agent.update(record!.id, {
      cash_offer_counter_amount: '372000',
      cash_offer_counter_listing_broker_commission_pct: '2',
    });
    await decide();
    const countered = await steps.agent.offerRecord(offer.offer_id);
    expect(steps.agent.stageKey(countered!)).toBe('countered');
    expect(countered!.properties).toMatchObject({
      [OFFER.status]: 'countered',
      [OFFER.counterStatus]: 'pending',
    });
    const counterId = Number(countered!.properties[OFFER.counterId]);
    const buyerAccepted = await steps.sandbox.acceptCounter(counterId);
    await steps.applyEvents(1);
    await t.run('offers-reconcile');
    const newRecord = await steps.agent.offerRecord(buyerAccepted.offer_id);
    expect(newRecord).toBeDefined();
    expect(newRecord!.properties[OFFER.amount]).toBe('372000');
  });

  it('listing-agent edits after submission go out as one PATCH; an edit the service cannot take is explained', async () => {
    const patches = async () =>
      (await steps.sandbox.calls()).filter(
        (c) => c.method === 'PATCH' && c.path.startsWith('/api/v2/offer-requests'),
      ).length;
    const { dealId, requestId } = await steps.activeRequest();
    const before = await patches();
    await steps.agent.update(dealId, {
      listing_agent_email: 'sam@acme-realty.example',
      listing_street_name: 'Elm Street',
    });
    await t.run('crm-changes');
    await t.run('outbox-drain');
    expect(await patches()).toBe(before + 1);
    const [stored] = (await steps.sandbox.requests()).filter((r) => r.offer_request_id === requestId);
    expect((stored as unknown as { property: Record<string, unknown> }).property).toMatchObject({
      ListAgentEmail: 'sam@acme-realty.example',
      StreetName: 'Oak Street',
    });
    expect((await steps.agent.deal(dealId)).properties[DEAL.syncError]).toContain(
      'StreetName changed after submission (sent "Oak Street", now "Elm Street")',
    );
  });
});

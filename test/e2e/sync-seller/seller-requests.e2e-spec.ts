import { UNIQUE_OFFER_ID } from '../../../src/crm';
import { DEAL, LINK } from '../../../src/sync/common/listing-deal.properties';
import { OUTBOX_MAX_ATTEMPTS } from '../../../src/sync/outbox/outbox-retry.policy';
import { startSyncApp, type SyncTestApp } from '../../support/sync-app';
import { SyncAgent, VALID_LISTING } from '../../support/sync-agent';
import { waitFor } from '../../support/wait-for';
import { SandboxControl } from '../../support/sync-sandbox';
import { agentAppPerDescribe, type AgentApp } from './agent-app';
import { EvidenceLooks } from '../../../src/sync/seller-requests/evidence-looks';

const DEAL_PROPS = Object.values(DEAL);

// The agent asks for a cash offer on the deal; the service stores the request, and its answer is
// held past the client's time-out: the create is left `unknown`.
async function createAnswerLostIn({ t, agent, sandbox }: AgentApp, dealId: string) {
  await agent.requestCashOffer(dealId);
  await sandbox.faults({ match: 'POST /offer-requests', hangAfterCommitMs: 3000 });
  await t.run('crm-changes');
  await t.run('outbox-drain');
  await sandbox.clearFaults();
  const [stored] = (await sandbox.requests()).filter((r) => r.offer_request_external_id === dealId);
  const [command] = (await t.ledger.outbox.listByState('acme', ['unknown'])).filter(
    (c) => c.recordRef === `deal:${dealId}`,
  );
  return { stored, command };
}

describe('seller requests: listing deals become offer requests', () => {
  let t: SyncTestApp;
  let agent: SyncAgent;
  let sandbox: SandboxControl;

  beforeAll(async () => {
    t = await startSyncApp();
    agent = new SyncAgent(t.hubspot.url, t.hubspot.token, t.crm);
    sandbox = new SandboxControl(t.sandbox.controlUrl);
  });

  afterAll(async () => {
    await t.close();
  });

  // An unknown outcome is looked for again only from its next check (30 s and more after the send):
  // the test brings that moment forward instead of waiting for it.
  const checkNow = (id: number) =>
    t.ledger.transactions.run((m) =>
      m.query('UPDATE outbox_commands SET next_attempt_at = NULL WHERE id = ?', [id]),
    );
  const requestsFor = async (dealId: string) =>
    (await sandbox.requests()).filter((r) => r.offer_request_external_id === dealId);
  // The create was sent over an hour ago: its window (60 minutes by default) has passed.
  const windowPassed = (id: number) =>
    t.ledger.transactions.run((m) =>
      m.query('UPDATE outbox_commands SET sent_at = ?, next_attempt_at = NULL WHERE id = ?', [
        new Date(Date.now() - 61 * 60_000).toISOString(),
        id,
      ]),
    );
  // The deal shows the one request the service holds for it, and no error.
  const expectLinked = async (dealId: string, requestId: number) => {
    const deal = await waitFor(
      async () => {
        const d = await agent.deal(dealId, DEAL_PROPS);
        return d.properties[DEAL.requestId] ? d : undefined;
      },
      { what: 'the request id on the deal' },
    );
    expect(deal.properties[DEAL.requestId]).toBe(String(requestId));
    expect(deal.properties[DEAL.syncError] ?? '').toBe('');
    expect(await requestsFor(dealId)).toHaveLength(1);
  };
  // The offer's new_offer event, delivered by the sandbox, is in the inbox.
  const offerEventReceived = (offerId: number) =>
    waitFor(
      async () =>
        (await t.ledger.inbox.list({ brokerageId: 'acme', eventType: 'new_offer', limit: 500 })).some(
          (e) => (JSON.parse(e.payload) as { offer_id?: number }).offer_id === offerId,
        ),
      { what: "the offer's new_offer event in the inbox" },
    );
  // The offer's CRM record, once the inbox has applied its event (a waiting event is applied on a
  // later try).
  const offerRecordShown = (offerId: number) =>
    waitFor(
      async () => {
        await t.run('inbox-drain');
        const [found] = await t.crm.findByUniqueValues('deal', UNIQUE_OFFER_ID, [String(offerId)], []);
        return found;
      },
      { what: "the offer's CRM record" },
    );
  const createAnswerLost = (dealId: string) => createAnswerLostIn({ t, agent, sandbox }, dealId);

  it('shows why an invalid deal cannot be sent, sends nothing, then sends the fixed deal once', async () => {
    const { dealId } = await agent.listingDeal({
      ...VALID_LISTING,
      listing_street_name: 'x'.repeat(57),
      listing_state: 'Texas',
    });
    await agent.requestCashOffer(dealId);

    const first = await t.run('crm-changes');
    expect(first).toMatchObject({ status: 'succeeded', counts: { read: 1, failed: 1 } });
    const shown = await agent.deal(dealId, DEAL_PROPS);
    expect(shown.properties[DEAL.syncError]).toContain(
      'property.StreetName is 57 characters; the service allows 50 (deal property listing_street_name)',
    );
    expect(shown.properties[DEAL.syncError]).toContain('property.StateOrProvince is 5 characters');
    await t.run('outbox-drain');
    expect(await requestsFor(dealId)).toHaveLength(0);
    const errors = await t.ledger.recordErrors.listOpen({ brokerageId: 'acme' });
    expect(errors.map((e) => e.field)).toEqual(
      expect.arrayContaining(['property.StreetName', 'property.StateOrProvince']),
    );

    // A second cycle with the deal unchanged writes nothing new to the CRM and still sends nothing.
    await t.run('crm-changes');
    await t.run('outbox-drain');
    expect(await requestsFor(dealId)).toHaveLength(0);

    await agent.update(dealId, { listing_street_name: 'Oak Street', listing_state: 'TX' });
    const fixed = await t.run('crm-changes');
    expect(fixed.counts).toMatchObject({ created: 1, failed: 0 });
    const drained = await t.run('outbox-drain');
    expect(drained.counts).toMatchObject({ created: 1 });

    const stored = await requestsFor(dealId);
    expect(stored).toHaveLength(1);
    const deal = await agent.deal(dealId, DEAL_PROPS);
    expect(deal.properties).toMatchObject({
      [DEAL.requestId]: String(stored[0].offer_request_id),
      [DEAL.inventoryId]: String(stored[0].inventory_property_id),
      [DEAL.status]: 'in_review',
    });
    expect(deal.properties[DEAL.syncError] ?? '').toBe('');
    expect(Number(deal.properties[DEAL.prelimBuyers])).toBeGreaterThanOrEqual(0);
    expect(deal.properties[DEAL.prelimBuyBoxes]).toMatch(/^\d+$/);
    expect(await t.ledger.recordErrors.listOpen({ brokerageId: 'acme' })).toHaveLength(0);

    // Later cycles never send it again.
    await t.run('crm-changes');
    await t.run('outbox-drain');
    expect(await requestsFor(dealId)).toHaveLength(1);
  });

  // Which property fields the service requires is not shown beyond six: a service that requires
  // more refuses the create, and the deal says which CRM property to fill.
  it('a field the service requires beyond the six: the deal names its CRM property, and the fixed deal is sent once', async () => {
    await sandbox.specReadings({ createRequiredFields: 'listing-facts' });
    try {
      const { dealId } = await agent.listingDeal(VALID_LISTING);
      await agent.requestCashOffer(dealId);
      await t.run('crm-changes');
      await t.run('outbox-drain');
      expect(await requestsFor(dealId)).toHaveLength(0);
      const refused = (await agent.deal(dealId, DEAL_PROPS)).properties[DEAL.syncError] ?? '';
      expect(refused).toContain('property.BathroomsFull is required');
      expect(refused).toContain('BathroomsFull is the deal property listing_bathrooms_full');
      expect(refused).toContain('LivingArea is the deal property listing_living_area');
      expect(await t.ledger.outbox.listByState('acme', ['dead'])).toHaveLength(1);

      // Unchanged, it is not sent again.
      await t.run('crm-changes');
      await t.run('outbox-drain');
      expect(await requestsFor(dealId)).toHaveLength(0);

      await agent.update(dealId, { listing_bathrooms_full: '2', listing_living_area: '1850' });
      await t.run('crm-changes');
      await t.run('outbox-drain');
      const stored = await requestsFor(dealId);
      expect(stored).toHaveLength(1);
      const deal = await agent.deal(dealId, DEAL_PROPS);
      expect(deal.properties[DEAL.requestId]).toBe(String(stored[0].offer_request_id));
      expect(deal.properties[DEAL.syncError] ?? '').toBe('');
      await t.run('crm-changes');
      await t.run('outbox-drain');
      expect(await requestsFor(dealId)).toHaveLength(1);
    } finally {
      await sandbox.specReadings({ createRequiredFields: 'six' });
    }
  });

  it('reconciles a create that timed out after the service stored it: exactly one offer request', async () => {
    const { dealId } = await agent.listingDeal(VALID_LISTING);
    await agent.requestCashOffer(dealId);
    await sandbox.faults({ match: 'POST /offer-requests', hangAfterCommitMs: 3000 });
    await t.run('crm-changes');
    const timedOut = await t.run('outbox-drain');
    expect(timedOut.counts.failed).toBe(1);
    await sandbox.clearFaults();
    const stored = await requestsFor(dealId);
    expect(stored).toHaveLength(1);
    const [command] = await t.ledger.outbox.listByState('acme', ['unknown']);
    expect(command.recordRef).toBe(`deal:${dealId}`);

    // Still in review: not listed anywhere we can look, so it stays unknown and the operator is told.
    await checkNow(command.id);
    await t.run('outbox-drain');
    expect((await t.ledger.outbox.get(command.id))?.state).toBe('unknown');
    const open = await t.ledger.recordErrors.listOpen({ brokerageId: 'acme' });
    expect(open.find((e) => e.recordRef === dealId)?.message).toContain(
      `offer_request_external_id "${dealId}"`,
    );
    expect(await requestsFor(dealId)).toHaveLength(1);
    expect((await agent.deal(dealId, DEAL_PROPS)).properties[DEAL.syncError]).toContain(
      'but the answer was lost, so it is not known yet whether the service received it',
    );

    // Once approved and offered on, the offer payload echoes the deal's id: reconciled, written back.
    await sandbox.approve(stored[0].offer_request_id);
    await sandbox.makeOffer(stored[0].offer_request_id);
    await checkNow(command.id);
    await t.run('outbox-drain');
    const reconciled = await t.ledger.outbox.get(command.id);
    expect(reconciled?.state).toBe('done');
    // An offer names the request first; the active list, read too, has its inventory id and time.
    const approved = (await requestsFor(dealId))[0];
    expect(reconciled?.result).toMatchObject({
      offer_request_id: stored[0].offer_request_id,
      inventory_property_id: approved.inventory_property_id,
      offer_requested_at: approved.offer_requested_at,
      found_by: 'active list',
    });
    const deal = await waitFor(
      async () => {
        const d = await agent.deal(dealId, DEAL_PROPS);
        return d.properties[DEAL.requestId] ? d : undefined;
      },
      { what: 'the request id on the deal' },
    );
    expect(deal.properties[DEAL.requestId]).toBe(String(stored[0].offer_request_id));
    expect(deal.properties[DEAL.inventoryId]).toBe(String(approved.inventory_property_id));
    expect(deal.properties[DEAL.syncError] ?? '').toBe('');
    await t.run('crm-changes');
    await t.run('outbox-drain');
    expect(await requestsFor(dealId)).toHaveLength(1);
    // Sent once: the timeout was never followed by a second POST.
    expect((await t.ledger.outbox.get(command.id))?.attempts).toBe(1);
  });

  it('a create answered with a 5xx that the service never stored is sent again once its window has passed', async () => {
    const { dealId } = await agent.listingDeal(VALID_LISTING);
    await agent.requestCashOffer(dealId);
    await sandbox.faults({ match: 'POST /offer-requests', errorRate: 1, errorStatus: 500 });
    await t.run('crm-changes');
    await t.run('outbox-drain');
    await sandbox.clearFaults();
    const [command] = (await t.ledger.outbox.listByState('acme', ['unknown'])).filter(
      (c) => c.recordRef === `deal:${dealId}`,
    );
    expect(command).toBeDefined();
    expect(await requestsFor(dealId)).toHaveLength(0);

    // Within the window (60 minutes by default) it is looked for, never sent again.
    await checkNow(command.id);
    await t.run('outbox-drain');
    expect((await t.ledger.outbox.get(command.id))?.state).toBe('unknown');
    expect(await requestsFor(dealId)).toHaveLength(0);

    // Sent over an hour ago and still not listed: the service never received it.
    await windowPassed(command.id);
    await t.run('outbox-drain');
    expect(await t.ledger.outbox.get(command.id)).toMatchObject({ state: 'done', attempts: 2 });
    const [created] = await requestsFor(dealId);
    expect(await requestsFor(dealId)).toHaveLength(1);
    const deal = await agent.deal(dealId, DEAL_PROPS);
    expect(deal.properties[DEAL.requestId]).toBe(String(created.offer_request_id));
    expect(deal.properties[DEAL.syncError] ?? '').toBe('');
  });

  it.each(['ours', 'all-400'])(
    "a create sent again after its window to a service that refuses a second request with the deal's id (%s codes): looked for still, never sent without the id, linked once listed",
    async (errorCodes) => {
      await sandbox.specReadings({ duplicateExternalId: 'refused', errorCodes });
      try {
        const { dealId } = await agent.listingDeal({
          ...VALID_LISTING,
          listing_street_number: errorCodes === 'ours' ? '50' : '51',
          listing_street_name: 'Cedar Court',
        });
        const { stored, command } = await createAnswerLost(dealId);
        const requestsBefore = (await sandbox.requests()).length;
        // Still in review an hour later: the active list, which echoes the deal's id, does not show it,
        // so the create is sent again, and the service refuses it as a second request with that id.
        await windowPassed(command.id);
        await t.run('outbox-drain');
        const refused = await t.ledger.outbox.get(command.id);
        expect(refused).toMatchObject({ state: 'unknown', attempts: 2 });
        expect(refused?.lastError).toContain('is already used by offer request');
        // Never sent again without the id (a second request for the deal), nor given up.
        expect((await sandbox.requests()).length).toBe(requestsBefore);

        // Approved and offered on: found by the deal's id, linked to the one request.
        await sandbox.approve(stored.offer_request_id);
        await sandbox.makeOffer(stored.offer_request_id);
        await checkNow(command.id);
        await t.run('outbox-drain');
        expect((await t.ledger.outbox.get(command.id))?.state).toBe('done');
        await expectLinked(dealId, stored.offer_request_id);
      } finally {
        await sandbox.specReadings({ duplicateExternalId: 'stored', errorCodes: 'ours' });
      }
    },
  );

  it.each([
    ['declared', 'ours'],
    ['no-external-id', 'ours'],
    // GET /offers without the fields the spec gives to webhook payloads: only the offer event names it.
    ['declared', 'without-webhook-fields'],
  ])(
    'where the active list does not show ours by external id (%s; offers list %s), a lost create is found by its address, or an offer naming it, never sent again',
    async (activeListShape, offerListShape) => {
      await sandbox.specReadings({ activeListShape, offerListShape });
      try {
        // An address no other deal of this file uses: the listing at it can be only this deal's.
        const { dealId } = await agent.listingDeal({
          ...VALID_LISTING,
          listing_street_number:
            { declared: '40', 'no-external-id': '41' }[activeListShape]! +
            (offerListShape === 'ours' ? '' : 'B'),
          listing_street_name: 'Birch Lane',
        });
        const { stored, command } = await createAnswerLost(dealId);
        // Approved: on the active list, but nothing there says it is this deal's.
        await sandbox.approve(stored.offer_request_id);
        await windowPassed(command.id);
        await t.run('outbox-drain');
        if (activeListShape === 'declared') {
          // Listed, but with nothing to link it by: not sent again, said on the deal.
          expect((await t.ledger.outbox.get(command.id))?.state).toBe('unknown');
          expect(await requestsFor(dealId)).toHaveLength(1);
          const said = (await agent.deal(dealId, DEAL_PROPS)).properties[DEAL.syncError];
          expect(said).toContain(
            "The service's active list does not show this brokerage's requests by the deal's id",
          );
          // Nothing the service lists may ever name it (full soak 20261270): the operator who sees it
          // there names its request, and it is linked at once.
          expect(said).toContain(`confirm-received --id ${command.id} --request <its offer_request_id>`);
          // The first offer echoes the deal's id (in GET /offers, or only in its new_offer event):
          // found, written back, sent once.
          await sandbox.makeOffer(stored.offer_request_id);
          if (offerListShape !== 'ours')
            await waitFor(
              async () =>
                (await t.ledger.inbox.list({ brokerageId: 'acme', eventType: 'new_offer', limit: 500 })).some(
                  (e) =>
                    (JSON.parse(e.payload) as { offer_request_id?: number }).offer_request_id ===
                    stored.offer_request_id,
                ),
              { what: "the offer's new_offer event in the inbox" },
            );
          await checkNow(command.id);
          await t.run('outbox-drain');
        }
        // (no-external-id: the one listing at the deal's own address and asking price is its request.)
        expect(await t.ledger.outbox.get(command.id)).toMatchObject({ state: 'done', attempts: 1 });
        await expectLinked(dealId, stored.offer_request_id);
      } finally {
        await sandbox.specReadings({ activeListShape: 'ours', offerListShape: 'ours' });
      }
    },
  );

  // Sweep 1418: the first look for a lost create is 30 s after it; an offer made meanwhile waits for
  // the create, and one that expires and drops from GET /offers before that look could no longer be
  // confirmed. Its event names the request, so the look is brought forward as it arrives.
  it('an offer event naming a deal whose create answer was lost has it looked for at once, and the offer lands', async () => {
    await sandbox.specReadings({ activeListShape: 'declared' });
    try {
      const { dealId } = await agent.listingDeal({
        ...VALID_LISTING,
        listing_street_number: '43',
        listing_street_name: 'Birch Lane',
      });
      const { stored, command } = await createAnswerLost(dealId);
      expect(command.nextAttemptAt!.getTime()).toBeGreaterThan(Date.now() + 10_000);
      await sandbox.approve(stored.offer_request_id);
      const offer = await sandbox.makeOffer(stored.offer_request_id);
      await offerEventReceived(offer.offer_id);
      // The event waits for the create, and has it looked for now rather than in 30 s.
      await t.run('inbox-drain');
      await t.run('outbox-drain');
      expect(await t.ledger.outbox.get(command.id)).toMatchObject({ state: 'done', attempts: 1 });
      // The waiting event is applied on a later try: the agent sees the offer and its request.
      const record = await offerRecordShown(offer.offer_id);
      expect(record.id).toBeTruthy();
      const deal = await agent.deal(dealId, DEAL_PROPS);
      expect(deal.properties[DEAL.requestId]).toBe(String(stored.offer_request_id));
      expect(deal.properties[DEAL.offerCount]).toBe('1');
      expect(await requestsFor(dealId)).toHaveLength(1);
    } finally {
      await sandbox.specReadings({ activeListShape: 'ours' });
    }
  });

  // Readings sweep 1577 run 1: a create answered without its request id (the spec's declared
  // record), an active list that carries only the declared request object, offers listed without
  // the deal's echoed id, and the offer events lost while the worker that receives them was down:
  // nothing the service showed named the deal's request. The write-back gave up after its tenth
  // try with nothing on the deal, and the deal was never linked.
  it('a create answered without its id, on a service whose lists never name the deal, says so on the deal and is linked by the first offer naming it, however many tries that took', async () => {
    await sandbox.specReadings({
      createAnswer: 'declared-201',
      activeListShape: 'declared',
      offerListShape: 'without-webhook-fields',
    });
    try {
      const { dealId } = await agent.listingDeal({
        ...VALID_LISTING,
        listing_street_number: '44',
        listing_street_name: 'Birch Lane',
      });
      await agent.requestCashOffer(dealId);
      await t.run('crm-changes');
      await t.run('outbox-drain');
      const [stored] = await requestsFor(dealId);
      await sandbox.approve(stored.offer_request_id);
      const [writeBack] = (await t.ledger.outbox.listByState('acme', ['failed'])).filter(
        (c) => c.operation === 'write_back' && c.recordRef === `deal:${dealId}`,
      );
      expect(writeBack).toBeDefined();
      // Tried past the outbox's last attempt: the service still names nothing, and more tries
      // cannot change that, nor end the wait.
      for (let i = 0; i < OUTBOX_MAX_ATTEMPTS; i++) {
        await checkNow(writeBack.id);
        await t.run('outbox-drain');
      }
      const waited = await t.ledger.outbox.get(writeBack.id);
      expect(waited).toMatchObject({ state: 'failed' });
      expect(waited!.attempts).toBeGreaterThan(OUTBOX_MAX_ATTEMPTS);
      const waiting = await agent.deal(dealId, DEAL_PROPS);
      expect(waiting.properties[DEAL.requestId] ?? '').toBe('');
      expect(waiting.properties[DEAL.syncError]).toContain(
        `(inventory property ${stored.inventory_property_id}); its answer named no request id`,
      );
      expect(waiting.properties[DEAL.syncError]).toContain('Nothing is sent again.');
      // The decision history is told of the wait once, not at every try.
      const retries = (await t.ledger.history.list(`deal:${dealId}`)).filter(
        (e) => e.kind === 'write_back' && e.outcome === 'retry',
      );
      expect(retries).toHaveLength(1);

      // The first offer's event names the deal: it waits for the link and has the write-back tried
      // now, not at the end of its back-off.
      const offer = await sandbox.makeOffer(stored.offer_request_id);
      await offerEventReceived(offer.offer_id);
      await t.run('inbox-drain');
      expect((await t.ledger.outbox.get(writeBack.id))!.nextAttemptAt!.getTime()).toBeLessThanOrEqual(
        Date.now(),
      );
      await t.run('outbox-drain');
      expect(await t.ledger.outbox.get(writeBack.id)).toMatchObject({ state: 'done' });
      await expectLinked(dealId, stored.offer_request_id);
      expect(await t.ledger.recordErrors.listOpen({ brokerageId: 'acme' })).toEqual([]);
      const record = await offerRecordShown(offer.offer_id);
      expect(record.id).toBeTruthy();
    } finally {
      await sandbox.specReadings({
        createAnswer: 'record-201',
        activeListShape: 'ours',
        offerListShape: 'ours',
      });
    }
  });

  // Seen in a 200-kill soak: a create answered without its id waited out its write-back's back-off
  // (a minute and more) although the reconcile had already found the request in the active list under
  // the deal's id; meanwhile the offers pass skipped every offer on the unlinked request, and one
  // that expired off the list, its one event lost, never had a record.
  it.each([
    {
      shows: 'the active list',
      activeListShape: 'ours',
      offerListShape: 'without-webhook-fields',
      street: '46',
    },
    { shows: 'the offers list', activeListShape: 'declared', offerListShape: 'ours', street: '48' },
  ])(
    'a create answered without its id is linked by the reconcile as soon as $shows names the deal, and its offers get their records without waiting for the outbox',
    async ({ activeListShape, offerListShape, street }) => {
      await sandbox.specReadings({ createAnswer: 'declared-201', activeListShape, offerListShape });
      try {
        const { dealId } = await agent.listingDeal({
          ...VALID_LISTING,
          listing_street_number: street,
          listing_street_name: 'Birch Lane',
        });
        await agent.requestCashOffer(dealId);
        await t.run('crm-changes');
        await t.run('outbox-drain');
        const [stored] = await requestsFor(dealId);
        const [writeBack] = (await t.ledger.outbox.listByState('acme', ['failed'])).filter(
          (c) => c.operation === 'write_back' && c.recordRef === `deal:${dealId}`,
        );
        expect(writeBack.nextAttemptAt!.getTime()).toBeGreaterThan(Date.now());
        await sandbox.approve(stored.offer_request_id);
        // The offer's one event is lost: only the offers list shows it.
        await sandbox.faults({ webhooks: { dropRate: 1 } });
        const offer = await sandbox.makeOffer(stored.offer_request_id);
        await sandbox.clearFaults();

        // The pass reads the offer on a request not linked (no record) and finds the deal named by the
        // offer or by the active list: the request is linked there and then, and the next pass writes
        // the offer's record without waiting for the outbox (a daemon killed every few seconds may not
        // finish a drain for minutes).
        await t.run('offers-reconcile');
        expect(
          await t.ledger.links.find('acme', LINK.offerRequest, String(stored.offer_request_id)),
        ).toMatchObject({ crmId: dealId });
        await t.run('offers-reconcile');
        const [record] = await t.crm.findByUniqueValues(
          'deal',
          UNIQUE_OFFER_ID,
          [String(offer.offer_id)],
          [],
        );
        // The write-back, due now, finishes the deal: its request id, and no error left.
        expect((await t.ledger.outbox.get(writeBack.id))!.nextAttemptAt!.getTime()).toBeLessThanOrEqual(
          Date.now(),
        );
        await t.run('outbox-drain');
        expect(await t.ledger.outbox.get(writeBack.id)).toMatchObject({ state: 'done' });
        await expectLinked(dealId, stored.offer_request_id);
        expect(record?.id).toBeTruthy();
      } finally {
        await sandbox.clearFaults();
        await sandbox.specReadings({
          createAnswer: 'record-201',
          activeListShape: 'ours',
          offerListShape: 'ours',
        });
      }
    },
  );

  // A listing deal deleted in the CRM while its request is still active at the service: the
  // reconcile cannot show that request's status, and says so, but shows every other request's.
  it("a listing deal the agent deleted does not stop the reconcile from showing the other requests' status", async () => {
    const sent: { dealId: string; requestId: number }[] = [];
    for (const street of ['Gone Street', 'Kept Street']) {
      const { dealId } = await agent.listingDeal({ ...VALID_LISTING, listing_street_name: street });
      await agent.requestCashOffer(dealId);
      await t.run('crm-changes');
      await t.run('outbox-drain');
      const [stored] = await requestsFor(dealId);
      await sandbox.approve(stored.offer_request_id);
      sent.push({ dealId, requestId: stored.offer_request_id });
    }
    expect((await t.run('offers-reconcile')).status).toBe('succeeded');
    const [gone, kept] = sent;
    await agent.deleteDeal(gone.dealId);
    for (const { requestId } of sent) await sandbox.moveRequest(requestId, 'receiving_offers');

    const pass = await t.run('offers-reconcile');
    expect(pass).toMatchObject({ status: 'succeeded', counts: { failed: 1 } });
    expect((await agent.deal(kept.dealId, DEAL_PROPS)).properties[DEAL.status]).toBe('receiving_offers');
    const open = await t.ledger.recordErrors.listOpen({ brokerageId: 'acme' });
    const error = open.find((e) => e.recordRef === String(gone.requestId));
    expect(error).toMatchObject({ recordKind: 'request', field: DEAL.status });
    expect(error?.message).toContain(
      `offer request ${gone.requestId}: its status "receiving_offers" could not be shown on listing deal ${gone.dealId}`,
    );
  });

  it('a dry run classifies like a real run and writes nothing', async () => {
    const { dealId } = await agent.listingDeal(VALID_LISTING);
    await agent.requestCashOffer(dealId);
    const outboxBefore = await t.ledger.outbox.depth('acme');
    const cursorBefore = await t.ledger.cursors.get('acme', 'crm:deal:seller-requests');

    const dry = await t.run('crm-changes', { dryRun: true });
    expect(dry).toMatchObject({ status: 'succeeded', runId: null });
    expect(dry.counts.created).toBe(1);
    expect(await t.ledger.outbox.depth('acme')).toEqual(outboxBefore);
    expect(await t.ledger.cursors.get('acme', 'crm:deal:seller-requests')).toBe(cursorBefore);
    expect((await t.run('outbox-drain', { dryRun: true })).counts.created).toBe(0);

    const real = await t.run('crm-changes');
    expect(real.counts.created).toBe(dry.counts.created);
    await t.run('outbox-drain');
    expect(await requestsFor(dealId)).toHaveLength(1);
  });
});

// A brokerage's own checkbox as the trigger: the change read must ask the CRM for it, since a
// HubSpot search answers only the properties it is asked for.
describe("seller requests: a trigger property of the brokerage's own", () => {
  let t: SyncTestApp;
  let agent: SyncAgent;
  let sandbox: SandboxControl;

  beforeAll(async () => {
    t = await startSyncApp('hubspot', { triggerProperty: 'acme_go' });
    agent = new SyncAgent(t.hubspot.url, t.hubspot.token, t.crm);
    sandbox = new SandboxControl(t.sandbox.controlUrl);
    await t.crm.ensureSchema({
      groups: [],
      properties: [{ kind: 'deal', name: 'acme_go', label: 'Acme: go', type: 'bool', group: 'cash_offer' }],
      pipelines: [],
    });
  });

  afterAll(async () => {
    await t.close();
  });

  it('sends a deal whose trigger property the agent ticked, and not one left unticked', async () => {
    const { dealId } = await agent.listingDeal(VALID_LISTING);
    const { dealId: untouched } = await agent.listingDeal(VALID_LISTING);
    await agent.update(dealId, { acme_go: 'true' });
    const run = await t.run('crm-changes');
    expect(run.counts).toMatchObject({ created: 1, failed: 0 });
    await t.run('outbox-drain');
    const requests = await sandbox.requests();
    expect(requests.filter((r) => r.offer_request_external_id === dealId)).toHaveLength(1);
    expect(requests.filter((r) => r.offer_request_external_id === untouched)).toHaveLength(0);
  });
});

// Full soak 20261255: a create's answer lost (the service stored it), on a service whose active list
// carries only the declared request object and whose GET /offers leaves out the deal's echoed id; the
// offer events, which alone name the deal, were sent once while the daemon was down. The deal never
// learnt its request, and its two offers never had records. GET /offers lists only this account's
// requests: an offer on one no deal holds, made after the one create whose answer never came, is on
// that create's request. Its own app: the rule holds only while this account has made no request
// outside the daemon, which the second half shows.
describe('seller requests: a lost create on a service that names the deal in offer events only', () => {
  const app = agentAppPerDescribe({
    activeListShape: 'declared',
    offerListShape: 'without-webhook-fields',
  });

  const requestsFor = async (dealId: string) =>
    (await app.sandbox.requests()).filter((r) => r.offer_request_external_id === dealId);
  // The deal's create reaches the service, its answer does not; the request is approved and a buyer
  // makes an offer whose one event is lost.
  const createLostAndOffered = async (street: string) => {
    const { agent, sandbox } = app;
    const { dealId } = await agent.listingDeal({
      ...VALID_LISTING,
      listing_street_number: street,
      listing_street_name: 'Alder Way',
    });
    const { stored, command } = await createAnswerLostIn(app, dealId);
    expect(command).toBeDefined();
    await sandbox.approve(stored.offer_request_id);
    await sandbox.faults({ webhooks: { dropRate: 1 } });
    const offer = await sandbox.makeOffer(stored.offer_request_id);
    await sandbox.clearFaults();
    return { dealId, stored, command, offer };
  };
  const holder = async (requestId: number) =>
    (await app.t.ledger.links.find('acme', LINK.offerRequest, String(requestId)))?.crmId;

  it('an offer on the one request no deal holds links the one create whose answer was lost; once the account is seen making requests outside the daemon, never again', async () => {
    const { t, agent, sandbox } = app;
    const { dealId, stored, command, offer } = await createLostAndOffered('60');
    expect((await t.run('offers-reconcile')).status).toBe('succeeded');
    expect(await holder(stored.offer_request_id)).toBe(dealId);
    await t.run('outbox-drain');
    expect(await t.ledger.outbox.get(command.id)).toMatchObject({ state: 'done', attempts: 1 });
    const deal = await agent.deal(dealId, DEAL_PROPS);
    expect(deal.properties[DEAL.requestId]).toBe(String(stored.offer_request_id));
    expect(deal.properties[DEAL.syncError] ?? '').toBe('');
    expect(await requestsFor(dealId)).toHaveLength(1);
    expect((await t.run('offers-reconcile')).status).toBe('succeeded');
    const [record] = await t.crm.findByUniqueValues('deal', UNIQUE_OFFER_ID, [String(offer.offer_id)], []);
    expect(record?.id).toBeTruthy();

    // A request made with this brokerage's key outside the daemon gets an offer while no create of
    // the daemon is unfinished: the account is seen making its own.
    const made = await fetch(`${t.sandbox.baseUrl}/offer-requests`, {
      method: 'POST',
      headers: { authorization: t.sandbox.agentKey, 'content-type': 'application/json' },
      body: JSON.stringify({
        request: { offer_request_asking: 310_000 },
        property: {
          StreetNumber: '61',
          StreetName: 'Alder Way',
          PostalCity: 'Austin',
          StateOrProvince: 'TX',
          PostalCode: '78701',
          MlsStatus: 'Active',
        },
      }),
    });
    expect(made.status).toBe(201);
    const [outside] = (await sandbox.requests()).filter(
      (r) => r.offer_request_external_id == null && r.offer_request_id !== stored.offer_request_id,
    );
    await sandbox.approve(outside.offer_request_id);
    await sandbox.makeOffer(outside.offer_request_id);
    expect((await t.run('offers-reconcile')).status).toBe('succeeded');
    expect(await holder(outside.offer_request_id)).toBeUndefined();

    // From then on a request no deal holds may be anyone's: a later lost create is not linked to it.
    const later = await createLostAndOffered('62');
    expect((await t.run('offers-reconcile')).status).toBe('succeeded');
    expect(await holder(later.stored.offer_request_id)).toBeUndefined();
    expect(await holder(outside.offer_request_id)).toBeUndefined();
    await t.run('outbox-drain');
    expect((await t.ledger.outbox.get(later.command.id))?.state).toBe('unknown');

    // The operator, who sees the request in the service, names it (cli confirm-received --request):
    // not one another deal holds; the right one is linked and finished, never sent again.
    const looks = t.app.get(EvidenceLooks);
    expect(await looks.namedByOperator(later.command.id, stored.offer_request_id)).toEqual({
      linked: false,
      reason: `offer request ${stored.offer_request_id} is deal ${dealId}'s already`,
    });
    expect(await looks.namedByOperator(later.command.id, later.stored.offer_request_id)).toEqual({
      linked: true,
      dealId: later.dealId,
      brokerageId: 'acme',
    });
    await t.run('outbox-drain');
    expect(await t.ledger.outbox.get(later.command.id)).toMatchObject({ state: 'done', attempts: 1 });
    const named = await agent.deal(later.dealId, DEAL_PROPS);
    expect(named.properties[DEAL.requestId]).toBe(String(later.stored.offer_request_id));
    expect(await requestsFor(later.dealId)).toHaveLength(1);
  });
});

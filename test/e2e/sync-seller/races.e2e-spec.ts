import { CASH_OFFERS_PIPELINE } from '../../../src/crm';
import { InboxEvent, Link, OutboxCommand } from '../../../src/ledger';
import { LINK } from '../../../src/sync/common/listing-deal.properties';
import { OFFER } from '../../../src/sync/offers/offer-record.properties';
import { startSyncApp, type SyncTestApp } from '../../support/sync-app';
import { VALID_LISTING } from '../../support/sync-agent';
import { waitFor } from '../../support/wait-for';
import { SellerFlowSteps } from '../../support/sync-flows';
import { ledgerEngines } from '../../support/ledger-fixture';

// What a crash, a second job or a forged webhook could do to an agent's offer records, and must not,
// on each ledger engine.
describe.each(ledgerEngines())(
  'offer records under crashes, races and forged events (ledger on %s)',
  (engine) => {
    let t: SyncTestApp;
    let steps: SellerFlowSteps;

    beforeAll(async () => {
      t = await startSyncApp('hubspot', { engine });
      steps = new SellerFlowSteps(t);
    });

    afterAll(async () => {
      await t?.close();
    });

    // An offer's record, once the daemon has written it: the event may still be waiting for a retry
    // on a busy machine, so the offers reconcile (the polling backstop) runs until it is there.
    const recordOf = (offerId: number) =>
      waitFor(
        async () => {
          const record = await steps.offerRecord(offerId);
          if (record) return record;
          await t.run('offers-reconcile');
          return steps.offerRecord(offerId);
        },
        { what: `the record of offer ${offerId}`, timeoutMs: 30_000, intervalMs: 200 },
      );
    const moveTo = async (offerId: number, stage: string) => {
      const record = await recordOf(offerId);
      await steps.agent.update(
        record.id,
        {},
        {
          pipelineId: t.stages.pipelineId(CASH_OFFERS_PIPELINE),
          stageId: t.stages.stageId(CASH_OFFERS_PIPELINE, stage),
        },
      );
    };
    // A new offer the agent has asked to counter (the move read, the command queued, not yet sent).
    const counterAsked = async (amount: string) => {
      const { requestId } = await steps.activeRequest();
      const offer = await steps.sandbox.makeOffer(requestId);
      await steps.applyEvents(1);
      const record = await recordOf(offer.offer_id);
      await steps.agent.update(
        record.id,
        { cash_offer_counter_amount: amount },
        {
          pipelineId: t.stages.pipelineId(CASH_OFFERS_PIPELINE),
          stageId: t.stages.stageId(CASH_OFFERS_PIPELINE, 'counter_requested'),
        },
      );
      expect((await t.run('crm-changes')).status).toBe('succeeded');
      return { offer, record };
    };
    // The agent moves the record in HubSpot's UI just before the daemon's next call matching `call`
    // is handled (the emulator's queued UI change): the moment between a writer's read and its write.
    const agentMovesJustBefore = async (recordId: string, stage: string, call: string) => {
      const queued = await fetch(`${t.hubspot.url}/__control/objects/deals/${recordId}/ui-change`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          properties: { dealstage: t.stages.stageId(CASH_OFFERS_PIPELINE, stage) },
          beforeCall: call,
        }),
      });
      expect(queued.status).toBe(202);
    };
    // The agent's reject of a countered offer, read from its stage, sent once, and shown: the offer
    // rejected at the service, the record in Counter rejected with no error.
    const expectRejectSentAndShown = async (offerId: number) => {
      expect((await t.run('crm-changes')).status).toBe('succeeded');
      expect((await t.run('outbox-drain')).status).toBe('succeeded');
      const [rejected] = (await steps.sandbox.offers()).filter((o) => o.offer_id === offerId);
      expect(rejected.offer_status).toBe('rejected');
      const shown = await steps.offerRecord(offerId);
      expect(steps.stageKey(shown!)).toBe('counter_rejected');
      expect(shown!.properties[OFFER.decisionError] ?? '').toBe('');
    };
    const hubspotFaults = async (faults: Record<string, number>) => {
      const res = await fetch(`${t.hubspot.url}/__control/faults`, {
        method: 'PUT',
        body: JSON.stringify(faults),
      });
      expect(res.ok).toBe(true);
    };
    // Ledger pokes through TypeORM, so they read the same on both engines.
    const forgetOfferLink = (offerId: number) =>
      t.ledger.transactions.run((m) => m.delete(Link, { kind: LINK.offer, remoteId: String(offerId) }));
    const dueNow = (entity: typeof OutboxCommand | typeof InboxEvent, id: number) =>
      t.ledger.transactions.run((m) => m.update(entity, { id }, { nextAttemptAt: null }));
    // The CRM write-back of an offer record, failed earlier, due now and run until it goes through.
    const writeBackRetried = async (recordId: string) => {
      const writeBack = async () =>
        (await t.ledger.outbox.listByState('acme', ['pending', 'failed'])).filter(
          (c) => c.operation === 'write_back' && c.recordRef === `deal:${recordId}`,
        );
      await waitFor(
        async () => {
          for (const c of await writeBack()) await dueNow(OutboxCommand, c.id);
          await t.run('outbox-drain');
          return (await writeBack()).length === 0;
        },
        { what: `the write-back of record ${recordId} to run`, timeoutMs: 20_000, intervalMs: 200 },
      );
    };
    const post = (payload: unknown) =>
      fetch(t.hookUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(payload),
      });
    const offerRecordsFor = (offerId: number) =>
      t.hubspot.state.findAllByProperty('deals', OFFER.id, String(offerId)).length;

    it("a crash between an offer record's create and its link never moves the agent's record back to Incoming", async () => {
      const { requestId } = await steps.activeRequest();
      const offer = await steps.sandbox.makeOffer(requestId);
      await steps.applyEvents(1);
      expect(steps.stageKey(await recordOf(offer.offer_id))).toBe('incoming');
      await moveTo(offer.offer_id, 'accept_requested');

      // As if the daemon died after creating the record and before saving its ledger link.
      await forgetOfferLink(offer.offer_id);
      expect((await t.run('offers-reconcile')).status).toBe('succeeded');

      const record = await steps.offerRecord(offer.offer_id);
      expect(steps.stageKey(record!)).toBe('accept_requested');
      expect(await t.ledger.links.find('acme', LINK.offer, String(offer.offer_id))).toMatchObject({
        crmId: record!.id,
      });
      // Two jobs writing the same offers at once: one record, still where the agent put it.
      await forgetOfferLink(offer.offer_id);
      await Promise.all([
        t.run('offers-reconcile'),
        steps.sandbox.makeOffer(requestId).then(() => t.run('inbox-drain')),
      ]);
      expect(steps.stageKey((await steps.offerRecord(offer.offer_id))!)).toBe('accept_requested');
      expect(offerRecordsFor(offer.offer_id)).toBe(1);
    });

    it('a decision read again before its write-back moved the record is not "decided twice"', async () => {
      const { requestId } = await steps.activeRequest();
      const offer = await steps.sandbox.makeOffer(requestId);
      await steps.applyEvents(1);
      await moveTo(offer.offer_id, 'accept_requested');
      expect((await t.run('crm-changes')).status).toBe('succeeded');

      // The service accepts; the CRM refuses the write-back for now.
      await hubspotFaults({ errorRate: 1, errorStatus: 400 });
      await t.run('outbox-drain');
      await hubspotFaults({ errorRate: 0 });
      expect(steps.stageKey((await steps.offerRecord(offer.offer_id))!)).toBe('accept_requested');

      // The record is read again in its requested stage: the agent's own decision, nothing new.
      expect((await t.run('crm-changes')).status).toBe('succeeded');
      const reread = await steps.offerRecord(offer.offer_id);
      expect(reread!.properties[OFFER.decisionError] ?? '').toBe('');
      expect(steps.stageKey(reread!)).toBe('accept_requested');

      const accepted = await waitFor(
        async () => {
          await t.run('outbox-drain');
          const record = await steps.offerRecord(offer.offer_id);
          return steps.stageKey(record!) === 'accepted' ? record : undefined;
        },
        { what: 'the offer record to show accepted', timeoutMs: 20_000, intervalMs: 500 },
      );
      expect(accepted.properties[OFFER.decisionError] ?? '').toBe('');
      expect(await t.ledger.recordErrors.listOpen({ brokerageId: 'acme' })).toEqual([]);
    });

    it("a reject the agent asks for before its counter's write-back ran is kept, sent and shown", async () => {
      const { offer, record } = await counterAsked('371000');
      // The service takes the counter; the CRM refuses its write-back for now.
      await hubspotFaults({ errorRate: 1, errorStatus: 400 });
      await t.run('outbox-drain');
      await hubspotFaults({ errorRate: 0 });
      const counters = (await steps.sandbox.counters()).filter((c) => c.offer_id === offer.offer_id);
      expect(counters).toHaveLength(1);

      // The agent turns the offer down before the write-back shows the counter: the write-back
      // writes the counter's id and status, and leaves the agent's stage (before, it moved the
      // record to Countered and the reject was never read).
      await moveTo(offer.offer_id, 'reject_requested');
      await writeBackRetried(record.id);
      const kept = await steps.offerRecord(offer.offer_id);
      expect(steps.stageKey(kept!)).toBe('reject_requested');
      expect(kept!.properties[OFFER.counterStatus]).toBe('pending');

      expect((await t.run('crm-changes')).status).toBe('succeeded');
      expect((await t.run('outbox-drain')).status).toBe('succeeded');
      const [held] = (await steps.sandbox.offers()).filter((o) => o.offer_id === offer.offer_id);
      expect(held.offer_status).toBe('rejected');
      const rejected = await steps.offerRecord(offer.offer_id);
      expect(steps.stageKey(rejected!)).toBe('counter_rejected');
      expect(rejected!.properties[OFFER.counterStatus]).toBe('rejected');
      expect(rejected!.properties[OFFER.decisionError] ?? '').toBe('');
    });

    // The agent turns down a countered offer in the moment between an offers-reconcile's read of the
    // record and its write of the buyer's refusal of the counter: HubSpot applies the agent's move,
    // then the write goes over it. The writer sees its write went over the move in the stage history
    // and puts it back, so the reject is read and sent (before, it was lost and, under a service that
    // puts a refused counter's offer back to active, the offer stayed open: targeted soak 1474005).
    it("an agent's reject made between a writer's read and its write is put back, read and sent", async () => {
      await steps.sandbox.specReadings({
        counterRejectedOfferListedAs: 'active',
        counterRejectedCallback: 'none',
      });
      try {
        const { offer, record } = await counterAsked('372000');
        expect((await t.run('outbox-drain')).status).toBe('succeeded');
        const [counter] = (await steps.sandbox.counters()).filter((c) => c.offer_id === offer.offer_id);
        expect(steps.stageKey((await steps.offerRecord(offer.offer_id))!)).toBe('countered');

        // The buyer refuses the counter (the offer is listed active again, no UPDATE); the agent's
        // reject lands in HubSpot just before the reconcile's write of the refusal.
        await steps.sandbox.rejectCounter(counter.counter_offer_id);
        await agentMovesJustBefore(record.id, 'reject_requested', 'POST /crm/v3/objects/deals/batch/upsert');
        expect((await t.run('offers-reconcile')).status).toBe('succeeded');
        const pending = await fetch(`${t.hubspot.url}/__control/ui-changes`);
        expect(await pending.json()).toEqual({ uiChanges: [] });
        const putBack = await steps.offerRecord(offer.offer_id);
        expect(steps.stageKey(putBack!)).toBe('reject_requested');
        expect(putBack!.properties[OFFER.counterStatus]).toBe('rejected');

        await expectRejectSentAndShown(offer.offer_id);
        expect(await t.ledger.recordErrors.listOpen({ brokerageId: 'acme' })).toEqual([]);
      } finally {
        await steps.sandbox.specReadings({
          counterRejectedOfferListedAs: 'rejected',
          counterRejectedCallback: 'flat',
        });
      }
    });

    // The same moment in a decision's outcome: the agent turns the offer down just before the counter's
    // write-back writes its message. The record already stood in Countered when the write-back read
    // it, so its stage is not written again, and the agent's move stands (before, it was written over).
    it("an agent's reject made just before a counter's write-back wrote the record is kept and sent", async () => {
      const { offer, record } = await counterAsked('373000');
      await agentMovesJustBefore(record.id, 'reject_requested', 'POST /crm/v3/objects/deals/batch/update');
      expect((await t.run('outbox-drain')).status).toBe('succeeded');
      expect((await steps.sandbox.counters()).filter((c) => c.offer_id === offer.offer_id)).toHaveLength(1);
      const putBack = await steps.offerRecord(offer.offer_id);
      expect(steps.stageKey(putBack!)).toBe('reject_requested');
      expect(putBack!.properties[OFFER.counterStatus]).toBe('pending');

      await expectRejectSentAndShown(offer.offer_id);
    });

    it("one offer accepted while another's reject is in flight: both end as the agent wanted, no error", async () => {
      const { requestId } = await steps.activeRequest();
      const a = await steps.sandbox.makeOffer(requestId);
      const b = await steps.sandbox.makeOffer(requestId);
      await steps.applyEvents(2);
      await moveTo(a.offer_id, 'accept_requested');
      await t.run('crm-changes');
      await moveTo(b.offer_id, 'reject_requested');
      await t.run('crm-changes');
      // A's accept goes first and its cascade rejects B; B's own reject then meets a 409.
      await t.run('outbox-drain');

      const dead = await t.ledger.outbox.listByState('acme', ['dead', 'failed', 'unknown']);
      expect(dead).toEqual([]);
      const rejected = await steps.offerRecord(b.offer_id);
      expect(steps.stageKey(rejected!)).toBe('rejected');
      expect(rejected!.properties[OFFER.decisionError] ?? '').toBe('');
      expect(await t.ledger.recordErrors.listOpen({ brokerageId: 'acme' })).toEqual([]);
    });

    // A counter's write-back retried after the agent's later decision on the offer was refused: the
    // record keeps the service's refusal (before, the write-back's "no error" wiped it, and the agent
    // saw Counter rejected with nothing saying their accept was not carried out: a full Follow Up
    // Boss crash soak, seed 20261213, offer 7079).
    it("a counter's late write-back leaves the refusal of the agent's later accept on the record", async () => {
      const { offer, record } = await counterAsked('374000');
      // The service takes the counter; the CRM refuses its write-back for now.
      await hubspotFaults({ errorRate: 1, errorStatus: 502 });
      await t.run('outbox-drain');
      await hubspotFaults({ errorRate: 0 });
      const [counter] = (await steps.sandbox.counters()).filter((c) => c.offer_id === offer.offer_id);
      expect(counter).toBeDefined();

      // The buyer refuses the counter; the agent, not yet seeing it, accepts the offer.
      await steps.sandbox.rejectCounter(counter.counter_offer_id);
      await moveTo(offer.offer_id, 'accept_requested');
      expect((await t.run('crm-changes')).status).toBe('succeeded');
      const refused = await waitFor(
        async () => {
          await t.run('outbox-drain');
          const shown = await steps.offerRecord(offer.offer_id);
          return shown?.properties[OFFER.decisionError] ? shown : undefined;
        },
        { what: "the accept's refusal on the record", timeoutMs: 20_000, intervalMs: 200 },
      );
      const refusal = refused.properties[OFFER.decisionError];
      expect(refusal).toContain(`did not accept offer ${offer.offer_id}`);
      const [held] = (await steps.sandbox.offers()).filter((o) => o.offer_id === offer.offer_id);
      expect(held.offer_status).toBe('rejected');

      await writeBackRetried(record.id);
      const shown = await steps.offerRecord(offer.offer_id);
      expect(steps.stageKey(shown!)).toBe('counter_rejected');
      expect(shown!.properties[OFFER.counterStatus]).toBe('rejected');
      expect(shown!.properties[OFFER.decisionError]).toBe(refusal);
      // The operator's list keeps it too.
      const open = (await t.ledger.recordErrors.listOpen({ brokerageId: 'acme' })).filter(
        (e) => e.recordKind === 'deal' && e.recordRef === record.id,
      );
      expect(open.map((e) => e.message)).toEqual([
        expect.stringContaining(`offer ${offer.offer_id} is rejected`),
      ]);
    });

    it('an offer that arrives while its request is still being looked for waits, then lands once linked', async () => {
      const { dealId } = await steps.agent.listingDeal(VALID_LISTING);
      await steps.agent.requestCashOffer(dealId);
      await steps.sandbox.faults({ match: 'POST /offer-requests', hangAfterCommitMs: 3000 });
      await t.run('crm-changes');
      await t.run('outbox-drain');
      await steps.sandbox.clearFaults();
      const [command] = (await t.ledger.outbox.listByState('acme', ['unknown'])).filter(
        (c) => c.recordRef === `deal:${dealId}`,
      );
      const [request] = (await steps.sandbox.requests()).filter(
        (r) => r.offer_request_external_id === dealId,
      );
      await steps.sandbox.approve(request.offer_request_id);
      const offer = await steps.sandbox.makeOffer(request.offer_request_id);
      await waitFor(async () => (await t.ledger.inbox.depth('acme')).pending >= 2, {
        what: 'two events in the inbox',
      });
      await t.run('inbox-drain');
      const waiting = await t.ledger.inbox.list({ brokerageId: 'acme', statuses: ['failed'] });
      expect(waiting.map((e) => e.lastError)).toEqual(
        expect.arrayContaining([expect.stringContaining(`the create for deal ${dealId} is unknown`)]),
      );
      expect(offerRecordsFor(offer.offer_id)).toBe(0);

      // The create is found; the waiting events apply on their next turn.
      await dueNow(OutboxCommand, command.id);
      await t.run('outbox-drain');
      expect((await t.ledger.outbox.get(command.id))?.state).toBe('done');
      for (const e of waiting) await dueNow(InboxEvent, e.id);
      await t.run('inbox-drain');
      expect(offerRecordsFor(offer.offer_id)).toBe(1);
      expect(await t.ledger.inbox.list({ brokerageId: 'acme', statuses: ['flagged', 'failed'] })).toEqual([]);
    });

    it("another brokerage's offer, an unknown request and a negative amount posted to this URL change nothing", async () => {
      // A real offer on another account's request (a second listing agent at the same service).
      const create = await fetch(`${t.sandbox.baseUrl}/offer-requests`, {
        method: 'POST',
        headers: { authorization: 'sandbox-agent2-key', 'content-type': 'application/json' },
        body: JSON.stringify({
          request: { offer_request_asking: 300_000 },
          property: {
            StreetNumber: '9',
            StreetName: 'Other Street',
            PostalCity: 'Austin',
            StateOrProvince: 'TX',
            PostalCode: '78701',
            MlsStatus: 'Active',
          },
        }),
      });
      expect(create.status).toBe(201);
      const foreign = (await create.json()) as { offer_request_id: number };
      await steps.sandbox.approve(foreign.offer_request_id);
      const theirs = await steps.sandbox.makeOffer(foreign.offer_request_id);
      const { requestId } = await steps.activeRequest();
      const asked = t.nowMs();
      // A clean complete offers pass a minute after the request went out.
      await t.advanceClock(30_000);
      expect((await t.run('offers-reconcile')).status).toBe('succeeded');
      await t.advanceClock(60_000);
      const dealsBefore = t.hubspot.state.count('deals');

      const forged = [
        { event: 'new_offer', ...theirs },
        { event: 'new_offer', ...theirs, offer_id: 990_001, offer_request_id: 987_654 },
        {
          event: 'new_offer',
          ...theirs,
          offer_id: 990_002,
          offer_request_id: requestId,
          offer_amount: -5000,
        },
        { event: 'new_offer', ...theirs, offer_id: 990_003, offer_request_id: requestId },
        // Claiming to have run out already: a service that drops expired offers would not list it
        // either, but this event came after the expiry it claims, so nothing was dropped meanwhile.
        {
          event: 'new_offer',
          ...theirs,
          offer_id: 990_004,
          offer_request_id: requestId,
          created_at: new Date(t.nowMs() - 3_600_000).toISOString(),
          offer_expires: new Date(t.nowMs() - 60_000).toISOString(),
        },
        // Made after the request and delivered after it ran out, as a retried delivery would be;
        // but the pass above, inside the life it claims, did not list it.
        {
          event: 'new_offer',
          ...theirs,
          offer_id: 990_005,
          offer_request_id: requestId,
          created_at: new Date(asked + 5_000).toISOString(),
          offer_expires: new Date(asked + 80_000).toISOString(),
        },
      ];
      for (const payload of forged) expect((await post(payload)).status).toBe(200);
      await waitFor(async () => (await t.ledger.inbox.depth('acme')).pending >= forged.length, {
        what: 'the forged events in the inbox',
      });
      await t.run('inbox-drain');

      const flagged = await t.ledger.inbox.list({ brokerageId: 'acme', statuses: ['flagged'] });
      const reasons = flagged.map((e) => e.deadReason ?? '');
      expect(reasons).toEqual(
        expect.arrayContaining([
          expect.stringContaining(
            `names offer request ${foreign.offer_request_id}, which no listing deal of brokerage acme is linked to`,
          ),
          expect.stringContaining('names offer request 987654'),
          expect.stringContaining('offer_amount must be a whole, non-negative number of dollars; got -5000'),
          expect.stringContaining(`the service does not list offer 990003 on offer request ${requestId}`),
          expect.stringContaining(`the service does not list offer 990004 on offer request ${requestId}`),
          expect.stringContaining(`the service does not list offer 990005 on offer request ${requestId}`),
        ]),
      );
      for (const id of [theirs.offer_id, 990_001, 990_002, 990_003, 990_004, 990_005])
        expect(offerRecordsFor(id)).toBe(0);
      // The real listing's approval is the only deal the daemon changed; no offer record was added.
      expect(t.hubspot.state.count('deals')).toBe(dealsBefore);
    });
  },
);

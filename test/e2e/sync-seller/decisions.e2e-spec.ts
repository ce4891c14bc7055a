import { OutboxCommand } from '../../../src/ledger';
import { DEAL } from '../../../src/sync/common/listing-deal.properties';
import { OFFER } from '../../../src/sync/offers/offer-record.properties';
import { NEUTRAL_LISTING, NeutralSellerSteps } from '../../support/crm-agent';
import { ledgerEngines } from '../../support/ledger-fixture';
import { waitFor } from '../../support/wait-for';
import { FLOW_TARGETS, startSyncApp, type SyncTestApp } from '../../support/sync-app';

// The same decisions for every CRM and ledger engine: the agent acts through the vendor-neutral port.
describe.each(FLOW_TARGETS)('decisions and counters made in the CRM (%s, ledger on %s)', (kind, engine) => {
  let t: SyncTestApp;
  let steps: NeutralSellerSteps;

  beforeAll(async () => {
    t = await startSyncApp(kind, { engine });
    steps = new NeutralSellerSteps(t);
  });

  afterAll(async () => {
    await t?.close();
  });

  const moveTo = async (offerId: number, stage: string, properties: Record<string, string> = {}) => {
    const record = await steps.agent.offerRecord(offerId);
    await steps.agent.moveOffer(record!.id, stage, properties);
  };
  const decisionCalls = async () =>
    (await steps.sandbox.calls()).filter((c) => c.method === 'PATCH' && c.path.startsWith('/api/v2/offers'))
      .length;
  const counterCalls = async () =>
    (await steps.sandbox.calls()).filter(
      (c) => c.method === 'POST' && c.path.startsWith('/api/v2/counter-offers'),
    ).length;
  const decide = async () => {
    expect((await t.run('crm-changes')).status).toBe('succeeded');
    expect((await t.run('outbox-drain')).status).toBe('succeeded');
  };

  it('accepts an offer and shows the cascade; deciding twice or a rejected offer gets a message, not a call', async () => {
    const { dealId, requestId } = await steps.activeRequest();
    const a = await steps.sandbox.makeOffer(requestId, { offer_amount: 350_000 });
    const b = await steps.sandbox.makeOffer(requestId, { offer_amount: 360_000 });
    const c = await steps.sandbox.makeOffer(requestId, { offer_amount: 340_000 });
    await steps.applyEvents(3);
    const callsBefore = await decisionCalls();

    await moveTo(a.offer_id, 'accept_requested');
    await decide();
    expect(await decisionCalls()).toBe(callsBefore + 1);
    const accepted = await steps.agent.offerRecord(a.offer_id);
    expect(steps.agent.stageKey(accepted!)).toBe('accepted');
    expect(accepted!.properties[OFFER.status]).toBe('accepted');
    for (const other of [b, c]) {
      const record = await steps.agent.offerRecord(other.offer_id);
      expect(steps.agent.stageKey(record!)).toBe('rejected');
      expect(record!.properties[OFFER.status]).toBe('rejected');
    }
    const deal = await steps.agent.deal(dealId);
    expect(deal.properties).toMatchObject({
      [DEAL.status]: 'under_contract',
      [DEAL.bestOffer]: '350000',
      [DEAL.offerCount]: '3',
    });

    // Accepting an offer the service already rejected.
    await moveTo(b.offer_id, 'accept_requested');
    await decide();
    const refused = await steps.agent.offerRecord(b.offer_id);
    expect(refused!.properties[OFFER.decisionError]).toContain(
      'This offer is rejected at the service; it can no longer be accepted',
    );
    expect(steps.agent.stageKey(refused!)).toBe('rejected');

    // Deciding the accepted offer a second time.
    await moveTo(a.offer_id, 'reject_requested');
    await decide();
    const twice = await steps.agent.offerRecord(a.offer_id);
    expect(twice!.properties[OFFER.decisionError]).toContain('was already accepted');
    expect(steps.agent.stageKey(twice!)).toBe('accepted');
    expect(await decisionCalls()).toBe(callsBefore + 1);
  });

  it('sends the decision on the offer that runs out first ahead of an older one', async () => {
    const { requestId } = await steps.activeRequest();
    const hours = (h: number) => new Date(Date.now() + h * 3_600_000).toISOString();
    const later = await steps.sandbox.makeOffer(requestId, {
      offer_amount: 300_000,
      offer_expires: hours(72),
    });
    const sooner = await steps.sandbox.makeOffer(requestId, {
      offer_amount: 310_000,
      offer_expires: hours(1),
    });
    await steps.applyEvents(2);

    // The older decision is queued first; both wait for the same drain (a backlog behind a CRM
    // outage or a dead worker looks the same to it).
    await moveTo(later.offer_id, 'reject_requested');
    expect((await t.run('crm-changes')).status).toBe('succeeded');
    await moveTo(sooner.offer_id, 'reject_requested');
    await decide();

    const decided = new Map((await steps.sandbox.offers()).map((o) => [o.offer_id, o.offer_decided_at]));
    const [soonerAt, laterAt] = [sooner, later].map((o) => Date.parse(String(decided.get(o.offer_id))));
    expect(Number.isFinite(soonerAt) && Number.isFinite(laterAt)).toBe(true);
    expect(soonerAt).toBeLessThanOrEqual(laterAt);
  });

  // Once, on the last ledger engine (PostgreSQL where it runs): the drain's claim is the ledger's.
  if (kind === 'hubspot' && engine === ledgerEngines().at(-1))
    it('a decision queued while the drain works through a backlog goes ahead of the rest of it', async () => {
      const { requestId } = await steps.activeRequest();
      const offer = await steps.sandbox.makeOffer(requestId, { offer_amount: 312_000 });
      await steps.applyEvents(1);
      // A backlog: new listings whose creates the service is slow to take, long enough that the
      // drain (three service commands at once) looks again for deadlines while creates are left.
      for (let i = 0; i < 12; i++)
        await steps.agent.requestCashOffer((await steps.agent.listingDeal(NEUTRAL_LISTING)).dealId);
      expect((await t.run('crm-changes')).status).toBe('succeeded');
      const creates = async () =>
        (await t.ledger.outbox.listByState('acme', ['pending', 'sending', 'done'])).filter(
          (c) => c.operation === 'create_offer_request',
        );
      const backlog = (await creates()).filter((c) => c.state === 'pending').map((c) => c.id);
      expect(backlog).toHaveLength(12);
      await steps.sandbox.faults({ match: 'POST /offer-requests', latencyMs: 1_000 });
      try {
        const drain = t.run('outbox-drain');
        await waitFor(
          async () => (await creates()).some((c) => backlog.includes(c.id) && c.state !== 'pending'),
          {
            what: 'the backlog being sent',
          },
        );
        await moveTo(offer.offer_id, 'reject_requested');
        expect((await t.run('crm-changes')).status).toBe('succeeded');
        expect((await drain).status).toBe('succeeded');
      } finally {
        await steps.sandbox.clearFaults();
      }
      const done = await t.ledger.outbox.listByState('acme', ['done']);
      const [decision] = done.filter(
        (c) =>
          c.operation === 'decide_offer' && (c.payload as { offerId?: number }).offerId === offer.offer_id,
      );
      expect(decision).toBeDefined();
      const lastCreate = Math.max(
        ...done.filter((c) => backlog.includes(c.id)).map((c) => c.completedAt!.getTime()),
      );
      expect(decision.completedAt!.getTime()).toBeLessThan(lastCreate);
      expect(steps.agent.stageKey((await steps.agent.offerRecord(offer.offer_id))!)).toBe('rejected');
    });

  it('an accept the service refuses (decided elsewhere) ends in a message on the record and in errors', async () => {
    const { requestId } = await steps.activeRequest();
    const a = await steps.sandbox.makeOffer(requestId, { offer_amount: 310_000 });
    const b = await steps.sandbox.makeOffer(requestId, { offer_amount: 320_000 });
    await steps.applyEvents(2);
    // Someone accepts A outside the CRM: the service rejects B, and no event says so.
    const res = await fetch(`${t.sandbox.baseUrl}/offers`, {
      method: 'PATCH',
      headers: { authorization: t.sandbox.agentKey, 'content-type': 'application/json' },
      body: JSON.stringify({ offer_id: a.offer_id, offer_status: 'accepted' }),
    });
    expect(res.status).toBe(200);

    await moveTo(b.offer_id, 'accept_requested');
    await decide();
    const record = await steps.agent.offerRecord(b.offer_id);
    expect(record!.properties[OFFER.decisionError]).toContain(
      `The Cash Offer service did not accept offer ${b.offer_id}`,
    );
    expect(steps.agent.stageKey(record!)).toBe('rejected');
    expect(steps.agent.stageKey((await steps.agent.offerRecord(a.offer_id))!)).toBe('accepted');
    const [dead] = await t.ledger.outbox.listByState('acme', ['dead']);
    expect(dead.operation).toBe('decide_offer');
    const errors = await t.ledger.recordErrors.listOpen({ brokerageId: 'acme' });
    expect(errors.find((e) => e.recordRef === record!.id)?.code).toBe('CONFLICT');
  });

  it('an accept whose answer was lost, its offer then rejected by another acceptance, is sent again and its refusal shown', async () => {
    const { requestId } = await steps.activeRequest();
    const a = await steps.sandbox.makeOffer(requestId, { offer_amount: 311_000 });
    const b = await steps.sandbox.makeOffer(requestId, { offer_amount: 321_000 });
    await steps.applyEvents(2);
    await moveTo(b.offer_id, 'accept_requested');
    expect((await t.run('crm-changes')).status).toBe('succeeded');
    // The daemon was killed while the accept was `sending`, before it left: its outcome is unknown
    // (as the drain leaves a command found `sending` after a restart).
    const [lost] = (await t.ledger.outbox.listByState('acme', ['pending'])).filter(
      (c) => c.operation === 'decide_offer',
    );
    await t.ledger.transactions.run((m) =>
      m.update(
        OutboxCommand,
        { id: lost.id },
        {
          state: 'unknown',
          attempts: 1,
          sentAt: new Date(t.nowMs()),
          lastError: 'the daemon stopped while this command was being sent',
        },
      ),
    );
    // Someone accepts A outside the CRM: the service rejects B, so B's accept cannot have landed.
    const res = await fetch(`${t.sandbox.baseUrl}/offers`, {
      method: 'PATCH',
      headers: { authorization: t.sandbox.agentKey, 'content-type': 'application/json' },
      body: JSON.stringify({ offer_id: a.offer_id, offer_status: 'accepted' }),
    });
    expect(res.status).toBe(200);
    expect((await t.run('outbox-drain')).status).toBe('succeeded');

    expect((await t.ledger.outbox.get(lost.id))?.state).toBe('dead');
    const record = await steps.agent.offerRecord(b.offer_id);
    expect(record!.properties[OFFER.decisionError]).toContain(
      `The Cash Offer service did not accept offer ${b.offer_id}`,
    );
    expect(steps.agent.stageKey(record!)).toBe('rejected');
    expect(record!.properties[OFFER.status]).toBe('rejected');
  });

  it('a reject that reaches the service after the offer ran out is done, not an error: the record shows Expired', async () => {
    const { requestId } = await steps.activeRequest();
    const offer = await steps.sandbox.makeOffer(requestId, {
      offer_amount: 305_000,
      offer_expires: new Date(t.nowMs() + 60_000).toISOString(),
    });
    await steps.applyEvents(1);
    await moveTo(offer.offer_id, 'reject_requested');
    expect((await t.run('crm-changes')).status).toBe('succeeded');
    // The offer runs out while the reject waits in the outbox.
    await t.advanceClock(120_000);
    expect((await t.run('outbox-drain')).status).toBe('succeeded');
    const record = await steps.agent.offerRecord(offer.offer_id);
    expect(steps.agent.stageKey(record!)).toBe('expired');
    expect(record!.properties[OFFER.status]).toBe('expired');
    expect(record!.properties[OFFER.decisionError] ?? '').toBe('');
    const open = await t.ledger.outbox.listByState('acme', ['dead', 'unknown', 'failed']);
    expect(open.filter((c) => c.recordRef === `deal:${record!.id}`)).toEqual([]);
  });

  it('sends a counter the buyer accepts: countered, then the new accepted offer and its cascade', async () => {
    const { dealId, requestId } = await steps.activeRequest();
    const offer = await steps.sandbox.makeOffer(requestId, { offer_amount: 360_000 });
    const other = await steps.sandbox.makeOffer(requestId, { offer_amount: 355_000 });
    await steps.applyEvents(2);

    // The amount is missing: the agent is told, nothing is sent; filling it in sends the counter once.
    await moveTo(offer.offer_id, 'counter_requested', { cash_offer_counter_memo: 'Meet in the middle' });
    await decide();
    const incomplete = await steps.agent.offerRecord(offer.offer_id);
    expect(incomplete!.properties[OFFER.decisionError]).toContain(
      'counter_offer_amount is required (offer record property cash_offer_counter_amount)',
    );
    expect(await counterCalls()).toBe(0);
    await steps.agent.update(incomplete!.id, {
      cash_offer_counter_amount: '372000',
      cash_offer_counter_listing_broker_commission_pct: '2',
    });
    await decide();
    expect(await counterCalls()).toBe(1);
    const countered = await steps.agent.offerRecord(offer.offer_id);
    expect(steps.agent.stageKey(countered!)).toBe('countered');
    expect(countered!.properties).toMatchObject({
      [OFFER.status]: 'countered',
      [OFFER.counterStatus]: 'pending',
    });
    expect(countered!.properties[OFFER.decisionError] ?? '').toBe('');
    const counterId = Number(countered!.properties[OFFER.counterId]);

    const buyerAccepted = await steps.sandbox.acceptCounter(counterId);
    await steps.applyEvents(1);
    const result = await steps.agent.offerRecord(buyerAccepted.offer_id);
    expect(steps.agent.stageKey(result!)).toBe('accepted');
    expect(result!.properties).toMatchObject({
      [OFFER.isCounterOffer]: 'true',
      [OFFER.amount]: '372000',
      [OFFER.counterId]: String(counterId),
    });
    expect((await steps.agent.offerRecord(offer.offer_id))!.properties[OFFER.counterStatus]).toBe('accepted');
    expect(steps.agent.stageKey((await steps.agent.offerRecord(other.offer_id))!)).toBe('rejected');
    expect((await steps.agent.deal(dealId)).properties[DEAL.status]).toBe('under_contract');
    expect(await counterCalls()).toBe(1);
  });

  it('sends a counter the buyer rejects: the UPDATE callback lands on the record', async () => {
    const { requestId } = await steps.activeRequest();
    const offer = await steps.sandbox.makeOffer(requestId, { offer_amount: 330_000 });
    await steps.applyEvents(1);
    await moveTo(offer.offer_id, 'counter_requested', { cash_offer_counter_amount: '345000' });
    await decide();
    const countered = await steps.agent.offerRecord(offer.offer_id);
    expect(steps.agent.stageKey(countered!)).toBe('countered');

    await steps.sandbox.rejectCounter(Number(countered!.properties[OFFER.counterId]));
    await steps.applyEvents(1);
    const rejected = await steps.agent.offerRecord(offer.offer_id);
    expect(steps.agent.stageKey(rejected!)).toBe('counter_rejected');
    expect(rejected!.properties).toMatchObject({
      [OFFER.counterStatus]: 'rejected',
      [OFFER.status]: 'rejected',
    });
  });

  // Once, on the last ledger engine: the command's states are the ledger's.
  if (kind === 'hubspot' && engine === ledgerEngines().at(-1))
    it('a counter answered 429 waits out Retry-After as pending, not sending, then goes once', async () => {
      const { requestId } = await steps.activeRequest();
      const offer = await steps.sandbox.makeOffer(requestId, { offer_amount: 314_000 });
      await steps.applyEvents(1);
      await moveTo(offer.offer_id, 'counter_requested', { cash_offer_counter_amount: '329000' });
      expect((await t.run('crm-changes')).status).toBe('succeeded');
      const counter = async () =>
        (await t.ledger.outbox.listByState('acme', ['pending', 'sending', 'failed', 'done'])).find(
          (c) =>
            c.operation === 'counter_offer' && (c.payload as { offerId?: number }).offerId === offer.offer_id,
        );
      const before = await counterCalls();
      await steps.sandbox.faults({
        match: 'POST /counter-offers',
        rateLimit: { requests: 1, retryAfterSeconds: 2 },
      });
      try {
        const drain = t.run('outbox-drain');
        await waitFor(async () => (await counterCalls()) > before, {
          what: 'the counter to be answered 429',
        });
        // While the client waits for the service's Retry-After, a crash finds a counter to send,
        // not one whose outcome is unknown (a counter nothing could later prove absent). (The
        // sandbox logs the call before the daemon has read its answer: wait for the daemon.)
        await waitFor(
          async () => {
            const now = (await counter())!;
            return now.state === 'pending' && now.lastError?.includes('429');
          },
          { what: 'the 429 to take the counter out of sending' },
        );
        expect(await counter()).toMatchObject({ state: 'pending', attempts: 0 });
        expect((await counter())!.lastError).toContain('429');
        expect((await drain).status).toBe('succeeded');
      } finally {
        await steps.sandbox.clearFaults();
      }
      expect(await counter()).toMatchObject({ state: 'done', attempts: 1 });
      expect(await counterCalls()).toBe(before + 2);
      expect(steps.agent.stageKey((await steps.agent.offerRecord(offer.offer_id))!)).toBe('countered');
    });
});

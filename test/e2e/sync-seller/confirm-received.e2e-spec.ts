import { OutboxCommand } from '../../../src/ledger';
import { OFFER } from '../../../src/sync/offers/offer-record.properties';
import { ReceivedConfirmations } from '../../../src/sync/outbox/received-confirmations';
import { NeutralSellerSteps } from '../../support/crm-agent';
import { startSyncApp, type SyncTestApp } from '../../support/sync-app';

// The documented limit of a counter whose answer was lost (docs/spec-decisions.md, "Finding a
// counter whose answer was lost"): on a service that lists a countered offer `active`, answers a
// counter with no body and names no counter on the offer a buyer makes by accepting one, nothing it
// lists shows whether the counter arrived until its buyer answers. The daemon neither sends it again
// nor shows it Countered; the operator, who can look in the service, says it is there
// (`cli confirm-received`), and the record then tells the truth without waiting for the buyer.
const LIMIT_READING = {
  counteredOfferListedAs: 'active',
  counterAnswer: 'empty-204',
  offerNamesCounter: 'unnamed',
  counterOfferFlag: 'null',
};

describe.each([
  ['a flat UPDATE naming the counter', {}],
  ['an UPDATE naming only the offer', { counterRejectedCallback: 'offer-only' }],
])('a counter whose answer was lost, confirmed received by the operator (%s)', (_name, more) => {
  let t: SyncTestApp;
  let steps: NeutralSellerSteps;

  beforeAll(async () => {
    t = await startSyncApp('hubspot');
    steps = new NeutralSellerSteps(t);
    await steps.sandbox.specReadings({ ...LIMIT_READING, ...more });
  });

  afterAll(async () => {
    await t?.close();
  });

  const countersOn = async (offerId: number) =>
    (await steps.sandbox.counters()).filter((c) => c.offer_id === offerId);
  const counterPosts = async () =>
    (await steps.sandbox.calls()).filter(
      (c) => c.method === 'POST' && c.path.startsWith('/api/v2/counter-offers'),
    );
  const stage = async (offerId: number) => steps.agent.stageKey((await steps.agent.offerRecord(offerId))!);
  const settle = async () => {
    await t.run('inbox-drain');
    expect((await t.run('offers-reconcile')).status).toBe('succeeded');
    await t.run('outbox-drain');
  };

  // The agent counters; the service stores the counter and the gateway answers 502; looked for
  // again, nothing the service lists shows it, and the record says what the operator can do.
  const counterLost = async (offerId: number, amount: string) => {
    const record = await steps.agent.offerRecord(offerId);
    await steps.agent.moveOffer(record!.id, 'counter_requested', { cash_offer_counter_amount: amount });
    await t.run('crm-changes');
    await steps.sandbox.faults({ match: 'POST /counter-offers', errorAfterCommitRate: 1 });
    await t.run('outbox-drain');
    await steps.sandbox.clearFaults();
    const [lost] = (await t.ledger.outbox.listByState('acme', ['unknown'])).filter(
      (c) => c.recordRef === `deal:${record!.id}`,
    );
    expect(lost).toBeDefined();
    await t.ledger.transactions.run((m) => m.update(OutboxCommand, { id: lost.id }, { nextAttemptAt: null }));
    await settle();
    expect((await t.ledger.outbox.get(lost.id))?.state).toBe('unknown');
    expect(await stage(offerId)).toBe('counter_requested');
    const errors = await t.ledger.recordErrors.listOpen({ brokerageId: 'acme' });
    expect(errors.map((e) => e.message).join('\n')).toContain(
      `if it is there, cash-offer-sync confirm-received --id ${lost.id} (finished, never sent again)`,
    );
    return lost;
  };

  it("shows Countered at the next drain, then the buyer's refusal, and the counter is never sent twice", async () => {
    const { requestId } = await steps.activeRequest();
    const offer = await steps.sandbox.makeOffer(requestId, { offer_amount: 331_000 });
    await steps.applyEvents(1);
    const lost = await counterLost(offer.offer_id, '345000');
    const [arrived] = await countersOn(offer.offer_id);
    expect(arrived.counter_offer_status).toBe('pending');

    expect((await t.app.get(ReceivedConfirmations).confirm([lost.id], 'acme'))[0].confirmed).toBe(true);
    await t.run('outbox-drain');
    expect((await t.ledger.outbox.get(lost.id))?.state).toBe('done');
    const countered = await steps.agent.offerRecord(offer.offer_id);
    expect(steps.agent.stageKey(countered!)).toBe('countered');
    expect(countered!.properties[OFFER.counterStatus]).toBe('pending');
    expect(countered!.properties[OFFER.decisionError] ?? '').toBe('');
    expect(
      (await t.ledger.recordErrors.listOpen({ brokerageId: 'acme' })).filter((e) =>
        e.message.includes(`--id ${lost.id} `),
      ),
    ).toHaveLength(0);
    const history = await t.ledger.history.list(`offer:${offer.offer_id}`, 'acme');
    expect(history.map((e) => e.summary).join('\n')).toContain(
      `counter_offer sent (outbox command ${lost.id}, attempt 1): done: the operator confirmed the service received it`,
    );

    // The buyer refuses it: the UPDATE finds the counter the confirmation linked.
    await steps.sandbox.rejectCounter(arrived.counter_offer_id);
    await steps.applyEvents(1);
    await settle();
    const refused = await steps.agent.offerRecord(offer.offer_id);
    expect(steps.agent.stageKey(refused!)).toBe('counter_rejected');
    expect(refused!.properties[OFFER.counterStatus]).toBe('rejected');
    expect((await t.ledger.inbox.depth('acme')).flagged ?? 0).toBe(0);
    expect(await countersOn(offer.offer_id)).toHaveLength(1);
    expect(await counterPosts()).toHaveLength(1);
  });

  it('shows the counter accepted once its buyer takes it', async () => {
    const postsBefore = (await counterPosts()).length;
    const { requestId } = await steps.activeRequest();
    const offer = await steps.sandbox.makeOffer(requestId, { offer_amount: 332_000 });
    await steps.applyEvents(1);
    const lost = await counterLost(offer.offer_id, '346000');
    expect((await t.app.get(ReceivedConfirmations).confirm([lost.id]))[0].confirmed).toBe(true);
    await t.run('outbox-drain');
    expect(await stage(offer.offer_id)).toBe('countered');

    const [arrived] = await countersOn(offer.offer_id);
    const made = await steps.sandbox.acceptCounter(arrived.counter_offer_id);
    await steps.applyEvents(1);
    await settle();
    const original = await steps.agent.offerRecord(offer.offer_id);
    expect(steps.agent.stageKey(original!)).toBe('countered');
    expect(original!.properties[OFFER.counterStatus]).toBe('accepted');
    expect(await stage(made.offer_id)).toBe('accepted');
    expect(await counterPosts()).toHaveLength(postsBefore + 1);
    expect((await t.ledger.outbox.listByState('acme', ['unknown', 'dead'])).length).toBe(0);
  });
});

import { OutboxCommand } from '../../../src/ledger';
import { LINK } from '../../../src/sync/common/listing-deal.properties';
import { decodeCounterLink } from '../../../src/sync/offers/counter-link';
import { OFFER } from '../../../src/sync/offers/offer-record.properties';
import { sellerAppUnderReadings, type SellerApp } from './seller-app-under-readings';
import { waitFor } from '../../support/wait-for';

// How a service lists a countered offer is learnt from the reads taken right after each counter is
// sent. A buyer who refuses within the send leaves one read showing the refused offer instead:
// `active`, on a service that lists a countered offer `rejected` and puts a refused one back on the
// market. Readings sweep 1594 run 3: that one read outweighed every earlier one, and a counter whose
// answer was lost, its offer listed `rejected` (waiting, on this service), was taken as refused by
// its buyer: the record showed Counter rejected while the service held it pending.
const READING = {
  counteredOfferListedAs: 'rejected',
  counterRejectedOfferListedAs: 'active',
  counterAnswer: 'empty-204',
  counterRejectedCallback: 'offer-only',
};

const countersAt = async ({ steps }: SellerApp, offerId: number) =>
  (await steps.sandbox.counters()).filter((c) => c.offer_id === offerId);

// The agent asks for a counter on the offer's record; the CRM's change is queued.
async function counterAsked({ t, steps }: SellerApp, offerId: number, amount: string) {
  const record = await steps.agent.offerRecord(offerId);
  await steps.agent.moveOffer(record!.id, 'counter_requested', { cash_offer_counter_amount: amount });
  expect((await t.run('crm-changes')).status).toBe('succeeded');
  return record!;
}

// The agent's counter reaches the service and its answer is lost (a 502 after the service stored
// it): its command is left `unknown`.
async function counterAnswerLost(app: SellerApp, offerId: number, amount: string) {
  const { t, steps } = app;
  await counterAsked(app, offerId, amount);
  await steps.sandbox.faults({ match: 'POST /counter-offers', errorAfterCommitRate: 1 });
  await t.run('outbox-drain');
  await steps.sandbox.clearFaults();
  const [command] = (await t.ledger.outbox.listByState('acme', ['unknown'])).filter(
    (c) => (c.payload as { offerId?: number }).offerId === offerId,
  );
  expect(command).toBeDefined();
  return command;
}

describe('the way this service lists a countered offer, read on many counters', () => {
  const app = sellerAppUnderReadings(READING);

  const countersOn = (offerId: number) => countersAt(app, offerId);
  const askCounter = (offerId: number, amount: string) => counterAsked(app, offerId, amount);
  const listedAtSend = async (offerId: number) =>
    decodeCounterLink((await app.t.ledger.links.find('acme', LINK.counter, String(offerId)))!).listedAtSend;

  it('one read taken after a buyer refused within the send does not outweigh the others', async () => {
    const { t, steps } = app;
    const { requestId } = await steps.activeRequest();
    const offers = [];
    for (const amount of [341_000, 342_000, 343_000, 344_000])
      offers.push(await steps.sandbox.makeOffer(requestId, { offer_amount: amount }));
    await steps.applyEvents(offers.length);
    const [first, second, refusedWithinSend, lost] = offers;

    // Two counters read as this service lists a waiting one: `rejected`.
    for (const [offer, amount] of [
      [first, '351000'],
      [second, '352000'],
    ] as const) {
      await askCounter(offer.offer_id, amount);
      expect((await t.run('outbox-drain')).status).toBe('succeeded');
      expect(await listedAtSend(offer.offer_id)).toBe('rejected');
    }

    // The third: its answer held while the buyer refuses it, so the read after the send shows the
    // offer back on the market. The buyer's refusal (an UPDATE) is not applied yet.
    await askCounter(refusedWithinSend.offer_id, '353000');
    await steps.sandbox.faults({ match: 'POST /counter-offers', hangAfterCommitMs: 1100 });
    const drain = t.run('outbox-drain');
    const [arrived] = await waitFor(
      async () => {
        const counters = await countersOn(refusedWithinSend.offer_id);
        return counters.length > 0 && counters;
      },
      { what: 'the third counter at the service' },
    );
    await steps.sandbox.rejectCounter(arrived.counter_offer_id);
    expect((await drain).status).toBe('succeeded');
    await steps.sandbox.clearFaults();
    expect(await listedAtSend(refusedWithinSend.offer_id)).toBe('active');

    // The fourth reaches the service, its answer does not; looked for, its offer is listed
    // `rejected`: waiting for its buyer, as the two reads before say.
    const command = await counterAnswerLost(app, lost.offer_id, '354000');
    await t.ledger.transactions.run((m) =>
      m.update(OutboxCommand, { id: command.id }, { nextAttemptAt: null }),
    );
    await t.run('outbox-drain');

    expect((await t.ledger.outbox.get(command.id))?.state).toBe('done');
    expect((await countersOn(lost.offer_id)).map((c) => c.counter_offer_status)).toEqual(['pending']);
    const waiting = await steps.agent.offerRecord(lost.offer_id);
    expect(steps.agent.stageKey(waiting!)).toBe('countered');
    expect(waiting!.properties[OFFER.counterStatus]).toBe('pending');

    // Once the events are in and the listings read, each record shows what the service holds.
    await t.run('inbox-drain');
    expect((await t.run('offers-reconcile')).status).toBe('succeeded');
    await t.run('outbox-drain');
    expect(steps.agent.stageKey((await steps.agent.offerRecord(refusedWithinSend.offer_id))!)).toBe(
      'counter_rejected',
    );
    for (const offer of [first, second, lost]) {
      const record = await steps.agent.offerRecord(offer.offer_id);
      expect(steps.agent.stageKey(record!)).toBe('countered');
      expect(record!.properties[OFFER.counterStatus]).toBe('pending');
    }
  });
});

// The brokerage's first counter, its answer lost: nothing yet shows how this service lists a waiting
// countered offer, so its `rejected` listing may be the counter waiting or its buyer's refusal. It is
// shown as the spec's flow has it (refused) until a later counter shows the habit; then the record
// tells the truth. Before, the refusal was kept for good (a replay of readings sweep 1594 run 3).
describe("the brokerage's first counter, its answer lost, on a service that lists a countered offer rejected", () => {
  const app = sellerAppUnderReadings(READING);

  it('shows Countered once a later counter shows how this service lists a waiting one', async () => {
    const { t, steps } = app;
    const { requestId } = await steps.activeRequest();
    const first = await steps.sandbox.makeOffer(requestId, { offer_amount: 361_000 });
    const second = await steps.sandbox.makeOffer(requestId, { offer_amount: 362_000 });
    await steps.applyEvents(2);

    const record = await steps.agent.offerRecord(first.offer_id);
    await steps.agent.moveOffer(record!.id, 'counter_requested', { cash_offer_counter_amount: '371000' });
    expect((await t.run('crm-changes')).status).toBe('succeeded');
    await steps.sandbox.faults({ match: 'POST /counter-offers', errorAfterCommitRate: 1 });
    await t.run('outbox-drain');
    await steps.sandbox.clearFaults();
    const [lost] = await t.ledger.outbox.listByState('acme', ['unknown']);
    expect(lost).toBeDefined();
    await t.ledger.transactions.run((m) => m.update(OutboxCommand, { id: lost.id }, { nextAttemptAt: null }));
    await t.run('outbox-drain');
    expect((await t.ledger.outbox.get(lost.id))?.state).toBe('done');
    expect((await steps.sandbox.counters()).map((c) => c.counter_offer_status)).toEqual(['pending']);

    // The second counter's answer comes: its offer read `rejected` right after the send.
    const other = await steps.agent.offerRecord(second.offer_id);
    await steps.agent.moveOffer(other!.id, 'counter_requested', { cash_offer_counter_amount: '372000' });
    expect((await t.run('crm-changes')).status).toBe('succeeded');
    expect((await t.run('outbox-drain')).status).toBe('succeeded');
    expect((await t.run('offers-reconcile')).status).toBe('succeeded');

    for (const offer of [first, second]) {
      const shown = await steps.agent.offerRecord(offer.offer_id);
      expect(steps.agent.stageKey(shown!)).toBe('countered');
      expect(shown!.properties[OFFER.counterStatus]).toBe('pending');
    }
  });
});

// Readings sweep 1613 run 1: the brokerage's first counters were each refused within their sends,
// so every read so far showed the offer back on the market (`active`), as refused offers are listed
// here; `active` became the habit, and every later counter's `rejected` read, its counter waiting,
// was taken for its buyer's refusal: three records showed Counter rejected while the service held
// their counters pending.
describe('the first counters refused within their sends, on a service that lists a countered offer rejected', () => {
  const app = sellerAppUnderReadings(READING);

  const countersOn = (offerId: number) => countersAt(app, offerId);
  const askCounter = (offerId: number, amount: string) => counterAsked(app, offerId, amount);

  it('a later counter read rejected as it waits is shown waiting, not refused', async () => {
    const { t, steps } = app;
    const { requestId } = await steps.activeRequest();
    const offers = [];
    for (const amount of [361_000, 362_000, 363_000])
      offers.push(await steps.sandbox.makeOffer(requestId, { offer_amount: amount }));
    await steps.applyEvents(offers.length);
    const [first, second, waits] = offers;

    for (const [offer, amount] of [
      [first, '371000'],
      [second, '372000'],
    ] as const) {
      await askCounter(offer.offer_id, amount);
      await steps.sandbox.faults({ match: 'POST /counter-offers', hangAfterCommitMs: 1100 });
      const drain = t.run('outbox-drain');
      const [arrived] = await waitFor(
        async () => {
          const counters = await countersOn(offer.offer_id);
          return counters.length > 0 && counters;
        },
        { what: `the counter on offer ${offer.offer_id} at the service` },
      );
      await steps.sandbox.rejectCounter(arrived.counter_offer_id);
      expect((await drain).status).toBe('succeeded');
      await steps.sandbox.clearFaults();
      // The buyer's refusal (an UPDATE) applied: how a refused offer is listed here is known.
      await steps.applyEvents(1);
      const refused = await steps.agent.offerRecord(offer.offer_id);
      expect(steps.agent.stageKey(refused!)).toBe('counter_rejected');
    }

    await askCounter(waits.offer_id, '373000');
    expect((await t.run('outbox-drain')).status).toBe('succeeded');
    expect(
      decodeCounterLink((await t.ledger.links.find('acme', LINK.counter, String(waits.offer_id)))!)
        .listedAtSend,
    ).toBe('rejected');
    expect((await t.run('offers-reconcile')).status).toBe('succeeded');
    expect((await countersOn(waits.offer_id)).map((c) => c.counter_offer_status)).toEqual(['pending']);
    const record = await steps.agent.offerRecord(waits.offer_id);
    expect(steps.agent.stageKey(record!)).toBe('countered');
    expect(record!.properties[OFFER.counterStatus]).toBe('pending');
  });
});

// Full soak 20261255: the seller rejected an offer whose counter waited, and a pass read the offer
// `rejected` before the reject's answer was in; that read was kept as how this service lists an
// offer whose buyer refused a counter (kept closed), so an `active` offer became proof that a counter
// never arrived. Two counters whose answers were lost, refused by their buyers (the offers back to
// `active`, the UPDATEs lost), were then taken for never sent: one was sent twice, the other given
// up as past its expiry, its record showing Expired for a counter the buyer had refused.
describe("the seller's reject of a countered offer, on a service that puts a refused offer back to active", () => {
  const app = sellerAppUnderReadings({
    counteredOfferListedAs: 'countered',
    counterRejectedOfferListedAs: 'active',
    counterRejectedCallback: 'offer-only',
    counterAnswer: 'empty-200',
  });

  const countersOn = (offerId: number) => countersAt(app, offerId);
  const askCounter = (offerId: number, amount: string) => counterAsked(app, offerId, amount);

  it('is not taken for how a refused offer is listed: a later counter whose answer was lost, refused by its buyer, is not sent again', async () => {
    const { t, steps } = app;
    const { requestId } = await steps.activeRequest();
    const rejected = await steps.sandbox.makeOffer(requestId, { offer_amount: 381_000 });
    const later = await steps.sandbox.makeOffer(requestId, { offer_amount: 382_000 });
    await steps.applyEvents(2);
    await askCounter(rejected.offer_id, '391000');
    expect((await t.run('outbox-drain')).status).toBe('succeeded');

    // The seller rejects the countered offer; the reject reaches the service, and a pass reads the
    // offer `rejected` before its answer is in.
    const record = await steps.agent.offerRecord(rejected.offer_id);
    await steps.agent.moveOffer(record!.id, 'reject_requested');
    expect((await t.run('crm-changes')).status).toBe('succeeded');
    await steps.sandbox.faults({ match: 'PATCH /offers', hangAfterCommitMs: 1500 });
    const drain = t.run('outbox-drain');
    await waitFor(
      async () =>
        (await steps.sandbox.offers()).find((o) => o.offer_id === rejected.offer_id)?.offer_status ===
        'rejected',
      { what: 'the reject at the service' },
    );
    expect((await t.run('offers-reconcile')).status).toBe('succeeded');
    expect((await drain).status).toBe('succeeded');
    await steps.sandbox.clearFaults();
    const link = await t.ledger.links.find('acme', LINK.counter, String(rejected.offer_id));
    expect(decodeCounterLink(link!).listedAfterRefusal).toBeUndefined();

    // The later counter reaches the service, its answer does not; its buyer refuses it, the offer is
    // back to `active`, and the UPDATE is lost.
    const lost = await counterAnswerLost(app, later.offer_id, '392000');
    const [arrived] = await countersOn(later.offer_id);
    await steps.sandbox.faults({ webhooks: { dropRate: 1 } });
    await steps.sandbox.rejectCounter(arrived.counter_offer_id);
    await steps.sandbox.clearFaults();

    // Looked for: the `active` offer may be that counter, refused; it is not sent again.
    await t.ledger.transactions.run((m) => m.update(OutboxCommand, { id: lost.id }, { nextAttemptAt: null }));
    await t.run('outbox-drain');
    expect(await countersOn(later.offer_id)).toHaveLength(1);
    expect((await t.ledger.outbox.get(lost.id))?.state).toBe('unknown');
  });
});

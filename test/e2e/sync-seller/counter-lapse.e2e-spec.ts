import { LINK } from '../../../src/sync/common/listing-deal.properties';
import { COUNTER_OFFER, DECIDE_OFFER, decisionKey } from '../../../src/sync/decisions/decision.command';
import { decodeCounterLink, encodeCounterLink } from '../../../src/sync/offers/counter-link';
import { OFFER } from '../../../src/sync/offers/offer-record.properties';
import { NeutralSellerSteps } from '../../support/crm-agent';
import { startSyncApp, type SyncTestApp } from '../../support/sync-app';
import { sellerAppUnderReadings } from './seller-app-under-readings';
import { waitFor } from '../../support/wait-for';

const HOUR = 3600_000;

// An offer running out in a day, and the agent's counter running out in an hour, read and queued.
async function counterAskedForAnHour(t: SyncTestApp, steps: NeutralSellerSteps) {
  const { requestId } = await steps.activeRequest();
  const offer = await steps.sandbox.makeOffer(requestId, {
    offer_amount: 300_000,
    offer_expires: new Date(t.nowMs() + 24 * HOUR).toISOString(),
  });
  await steps.applyEvents(1);
  const record = await steps.agent.offerRecord(offer.offer_id);
  await steps.agent.moveOffer(record!.id, 'counter_requested', {
    cash_offer_counter_amount: '315000',
    cash_offer_counter_expires: new Date(t.nowMs() + HOUR).toISOString(),
  });
  expect((await t.run('crm-changes')).status).toBe('succeeded');
  return offer;
}

// The same counter sent, and read back by one pass.
async function counteredForAnHour(t: SyncTestApp, steps: NeutralSellerSteps) {
  const offer = await counterAskedForAnHour(t, steps);
  expect((await t.run('outbox-drain')).status).toBe('succeeded');
  await t.run('inbox-drain');
  expect((await t.run('offers-reconcile')).status).toBe('succeeded');
  const counter = (await steps.sandbox.counters()).find((c) => c.offer_id === offer.offer_id)!;
  return { offer, counterId: counter.counter_offer_id };
}

// A counter that ends with no answer from its buyer: it runs out (what `counter_offer_expires` does
// is not shown, sandbox reading `counterLapse`), or its buyer takes the countered offer back. No event
// tells of either; the listings do, and the agent's record must follow them (docs/spec-decisions.md,
// "Other readings"). HubSpot on SQLite, real HTTP, the real ledger, both clocks moved together.
const READINGS: Record<string, unknown>[] = [
  // The counter lapses and the offer is the seller's to decide again, listed `countered` meanwhile.
  { counterLapse: 'offer-reopened', counteredOfferListedAs: 'countered' },
  // The same where a waiting countered offer is listed `rejected` at once.
  { counterLapse: 'offer-reopened', counteredOfferListedAs: 'rejected' },
  // The offer runs out with its counter, a countered offer listed `active` meanwhile.
  { counterLapse: 'offer-expired', counteredOfferListedAs: 'active' },
  // The same on a service that drops an expired offer from GET /offers: the lapse ends the offer,
  // and nothing lists it any more.
  { counterLapse: 'offer-expired', counteredOfferListedAs: 'active', expiredOfferListedAs: 'dropped' },
  // The agent leaves the counter's expiry empty; the service requires one (422 naming it), so the
  // daemon sends the offer's own; the counter lapses at it and the offer is reopened.
  {
    counterLapse: 'offer-reopened',
    counteredOfferListedAs: 'counter_offered',
    counterOmittedFields: 'required',
    errorCodes: 'all-422',
  },
];

describe.each(READINGS.map((r) => [JSON.stringify(r), r] as const))(
  'a counter that ends unanswered, under the spec reading %s',
  (_name, readings) => {
    let t: SyncTestApp;
    let steps: NeutralSellerSteps;

    beforeAll(async () => {
      t = await startSyncApp('hubspot');
      steps = new NeutralSellerSteps(t);
      await steps.sandbox.specReadings(readings);
    });

    afterAll(async () => {
      await t?.close();
    });

    const settle = async () => {
      await t.run('inbox-drain');
      expect((await t.run('offers-reconcile')).status).toBe('succeeded');
      await t.run('outbox-drain');
    };
    const fillsExpiry = readings.counterOmittedFields === 'required';
    // An offer running out in `offerMs`, countered with a counter running out in an hour (or, where
    // the service fills it, at the offer's own expiry); the counter sent and shown Countered.
    // The same, read and queued but not sent.
    const counterAsked = async (offerMs: number) => {
      const { requestId } = await steps.activeRequest();
      const offer = await steps.sandbox.makeOffer(requestId, {
        offer_amount: 300_000,
        offer_expires: new Date(t.nowMs() + offerMs).toISOString(),
      });
      await steps.applyEvents(1);
      const record = await steps.agent.offerRecord(offer.offer_id);
      await steps.agent.moveOffer(record!.id, 'counter_requested', {
        cash_offer_counter_amount: '315000',
        ...(fillsExpiry ? {} : { cash_offer_counter_expires: new Date(t.nowMs() + HOUR).toISOString() }),
      });
      expect((await t.run('crm-changes')).status).toBe('succeeded');
      return offer;
    };
    const countered = async (offerMs: number) => {
      const offer = await counterAsked(offerMs);
      expect((await t.run('outbox-drain')).status).toBe('succeeded');
      const counter = (await steps.sandbox.counters()).find((c) => c.offer_id === offer.offer_id);
      expect(counter?.counter_offer_status).toBe('pending');
      await settle();
      const shown = await steps.agent.offerRecord(offer.offer_id);
      expect([steps.agent.stageKey(shown!), shown!.properties[OFFER.counterStatus]]).toEqual([
        'countered',
        'pending',
      ]);
      return { offer, counterId: counter!.counter_offer_id };
    };
    const lapsedOfferStatus = readings.counterLapse === 'offer-reopened' ? 'active' : 'expired';
    // What the agent sees on the offer's record: stage, counter status, offer status.
    const shownOn = async (offerId: number) => {
      const record = await steps.agent.offerRecord(offerId);
      return [
        steps.agent.stageKey(record!),
        record!.properties[OFFER.counterStatus],
        record!.properties[OFFER.status],
      ];
    };

    it('the counter runs out: the record shows Counter rejected, counter status expired, as the service lists the offer', async () => {
      const { offer, counterId } = await countered(fillsExpiry ? HOUR : 24 * HOUR);
      await t.advanceClock(2 * HOUR);
      const lapsed = (await steps.sandbox.counters()).find((c) => c.counter_offer_id === counterId);
      expect(lapsed?.counter_offer_status).toBe('expired');
      await settle();
      expect(await shownOn(offer.offer_id)).toEqual([
        'counter_rejected',
        'expired',
        fillsExpiry ? 'expired' : lapsedOfferStatus,
      ]);
      // The decision history tells the same, listed or not.
      const lastShown = (await t.ledger.history.list(`offer:${offer.offer_id}`))
        .filter((e) => e.kind === 'record_shown')
        .at(-1);
      expect(JSON.parse(lastShown?.detail ?? '{}')).toMatchObject({ counterStatus: 'expired' });
      // Another pass writes nothing new and takes nothing back.
      await settle();
      const again = await steps.agent.offerRecord(offer.offer_id);
      expect(again!.properties[OFFER.counterStatus]).toBe('expired');
      expect((await t.ledger.inbox.depth('acme')).flagged ?? 0).toBe(0);
      // The buyer can no longer answer it.
      await expect(steps.sandbox.acceptCounter(counterId)).rejects.toThrow(/409/);
    });

    if (readings.counterLapse === 'offer-reopened' && !fillsExpiry)
      it("the offer reopened by the lapse is the seller's to accept: Accepted, the counter still shown expired", async () => {
        const { offer } = await countered(24 * HOUR);
        await t.advanceClock(2 * HOUR);
        await settle();
        const record = await steps.agent.offerRecord(offer.offer_id);
        await steps.agent.moveOffer(record!.id, 'accept_requested');
        expect((await t.run('crm-changes')).status).toBe('succeeded');
        expect((await t.run('outbox-drain')).status).toBe('succeeded');
        const accepted = await steps.agent.offerRecord(offer.offer_id);
        expect([
          steps.agent.stageKey(accepted!),
          accepted!.properties[OFFER.status],
          accepted!.properties[OFFER.counterStatus],
          accepted!.properties[OFFER.decisionError] ?? '',
        ]).toEqual(['accepted', 'accepted', 'expired', '']);
      });

    // The agent decides once the counter has lapsed, before any pass has read the listing that shows
    // it: the decision must not be taken to have ended the counter (readings sweep 1519, run 2: the
    // seller's reject sent after the lapse showed counter status rejected, the service said expired).
    if (readings.counterLapse === 'offer-reopened' && !fillsExpiry)
      it.each(['reject_requested', 'accept_requested'] as const)(
        'a %s sent after the lapse, before any pass read it, shows the counter expired',
        async (move) => {
          const { offer, counterId } = await countered(24 * HOUR);
          await t.advanceClock(2 * HOUR);
          const record = await steps.agent.offerRecord(offer.offer_id);
          await steps.agent.moveOffer(record!.id, move);
          expect((await t.run('crm-changes')).status).toBe('succeeded');
          expect((await t.run('outbox-drain')).status).toBe('succeeded');
          const decided = move === 'reject_requested' ? 'rejected' : 'accepted';
          const atService = (await steps.sandbox.counters()).find((c) => c.counter_offer_id === counterId);
          expect(atService?.counter_offer_status).toBe('expired');
          expect(await shownOn(offer.offer_id)).toEqual([
            decided === 'rejected' ? 'counter_rejected' : 'accepted',
            'expired',
            decided,
          ]);
          await settle();
          expect(await shownOn(offer.offer_id)).toEqual([
            decided === 'rejected' ? 'counter_rejected' : 'accepted',
            'expired',
            decided,
          ]);
        },
      );

    // A counter that reached the service as its own expiry passed was never read waiting: the send's
    // read and the write-back's came after the expiry and learnt nothing of how this service lists a
    // countered offer (a replay of readings sweep 1519, run 2: it lapsed at once and the record stayed
    // Countered, pending, for good). The brokerage's other counters tell.
    if (readings.counterLapse === 'offer-reopened' && !fillsExpiry)
      it("a lapsed counter never read waiting is read by the brokerage's other counters", async () => {
        await countered(24 * HOUR); // a counter read waiting: how this service lists one
        const { offer } = await countered(24 * HOUR);
        const link = (await t.ledger.links.find('acme', LINK.counter, String(offer.offer_id)))!;
        const { listedAtSend, ...neverRead } = decodeCounterLink(link);
        expect(listedAtSend).toBeDefined();
        await t.ledger.links.replaceContent(
          'acme',
          LINK.counter,
          link.remoteId,
          link.contentHash,
          encodeCounterLink(neverRead),
        );
        await t.advanceClock(2 * HOUR);
        await settle();
        expect(await shownOn(offer.offer_id)).toEqual(['counter_rejected', 'expired', 'active']);
      });

    // A counter whose answer was lost (a gateway's 502 after the service stored it), reconciled only
    // once it has lapsed: the `active` listing reads the same as a counter that never arrived. A
    // replay of readings sweep 1519, run 2: taken for never arrived, it was refused as run out on the
    // way out again, and the record said it was never sent while the service held it, expired. Where
    // the lapse ends the offer too, it is listed expired a day before its own expiry, which only the
    // counter's lapse does (readings sweep 1541, run 1: the record kept Counter requested, with
    // "check its counter offers in the service", and the command stayed unknown).
    // Where the counter's expiry is the offer's own (the service requires one, the agent left it
    // empty, the daemon sent the offer's), the offer runs out with the counter, as it would have
    // without it, so its listing tells nothing of whether the counter arrived; either way it ended
    // with the offer (full soak 20261246: the command stayed unknown, the record Counter requested).
    it(`a counter whose answer was lost and that ${fillsExpiry ? 'ran out with its offer' : 'lapsed'} before the reconcile shows expired, sent once`, async () => {
      // The offer lasts a day, or, where the counter takes the offer's expiry, an hour.
      const offerMs = fillsExpiry ? HOUR : 24 * HOUR;
      await countered(offerMs); // a counter read waiting: how this service lists one
      const offer = await counterAsked(offerMs);
      await steps.sandbox.faults({ match: 'POST /counter-offers', errorAfterCommitRate: 1 });
      try {
        await t.run('outbox-drain');
      } finally {
        await steps.sandbox.clearFaults();
      }
      const key = decisionKey('acme', offer.offer_id, COUNTER_OFFER);
      expect((await t.ledger.outbox.findByKey(key))?.state).toBe('unknown');
      await t.advanceClock(2 * HOUR);
      expect((await t.run('outbox-drain')).status).toBe('succeeded');
      await settle();
      const atService = (await steps.sandbox.counters()).filter((c) => c.offer_id === offer.offer_id);
      expect(atService.map((c) => c.counter_offer_status)).toEqual(['expired']);
      expect((await t.ledger.outbox.findByKey(key))?.state).toBe('done');
      expect(await shownOn(offer.offer_id)).toEqual([
        'counter_rejected',
        'expired',
        fillsExpiry ? 'expired' : lapsedOfferStatus,
      ]);
      const shown = await steps.agent.offerRecord(offer.offer_id);
      expect(shown!.properties[OFFER.decisionError] ?? '').toBe('');
    });

    // The agent rejects the countered offer; the daemon stops as the reject is sent (its outcome
    // unknown) and the counter's lapse ends the offer, which the service then no longer lists.
    // Whether or not the reject arrived, nothing is left to do: done, and the record where the offer
    // is (full soak 20261265: the command stayed unknown and the record in Reject requested for good).
    // An accept so cut did not take effect (an accepted offer stays listed): sent again, the
    // service's refusal is on the record, which shows where the offer is.
    if (readings.expiredOfferListedAs === 'dropped')
      it.each(['reject_requested', 'accept_requested'] as const)(
        "the agent's %s, its answer lost, overtaken by the lapse that ended the offer, shows where the offer is",
        async (move) => {
          const { offer, counterId } = await countered(24 * HOUR);
          const record = await steps.agent.offerRecord(offer.offer_id);
          await steps.agent.moveOffer(record!.id, move);
          expect((await t.run('crm-changes')).status).toBe('succeeded');
          // The daemon stopped while the reject was `sending`, before it left (as a restart finds it).
          const key = decisionKey('acme', offer.offer_id, DECIDE_OFFER);
          await t.ledger.outbox.markSending((await t.ledger.outbox.findByKey(key))!.id);
          await t.ledger.outbox.recoverInterrupted();
          expect((await t.ledger.outbox.findByKey(key))?.state).toBe('unknown');
          await t.advanceClock(2 * HOUR);
          await settle();
          await t.run('outbox-drain');
          const atService = (await steps.sandbox.counters()).find((c) => c.counter_offer_id === counterId);
          expect(atService?.counter_offer_status).toBe('expired');
          expect(await shownOn(offer.offer_id)).toEqual(['counter_rejected', 'expired', 'expired']);
          const shown = await steps.agent.offerRecord(offer.offer_id);
          if (move === 'reject_requested') {
            expect((await t.ledger.outbox.findByKey(key))?.state).toBe('done');
            expect(shown!.properties[OFFER.decisionError] ?? '').toBe('');
          } else {
            expect((await t.ledger.outbox.findByKey(key))?.state).toBe('dead');
            expect(shown!.properties[OFFER.decisionError]).toMatch(
              new RegExp(`^The Cash Offer service did not accept offer ${offer.offer_id}: .*expired`),
            );
          }
          // Nothing left for the operator but the service's refusal of an accept.
          const open = (await t.ledger.recordErrors.listOpen({ brokerageId: 'acme' })).filter(
            (e) => e.recordRef === record!.id,
          );
          expect(open.map((e) => e.message)).toEqual(
            move === 'reject_requested'
              ? []
              : [
                  `PATCH /offers: conflict (409): offer ${offer.offer_id} is expired; it can no longer be accepted`,
                ],
          );
        },
      );

    it('the buyer takes the countered offer back: Counter rejected, counter status withdrawn', async () => {
      const { offer } = await countered(24 * HOUR);
      await steps.sandbox.withdrawOffer(offer.offer_id);
      await settle();
      expect(await shownOn(offer.offer_id)).toEqual(['counter_rejected', 'withdrawn', 'withdrawn']);
    });
  },
);

// A counter that runs out before it reaches the service is never sent: at the agent's move (the
// expiry already past: a field to fix), or at the drain (it passed while the command waited).
describe('a counter that runs out before it is sent', () => {
  let t: SyncTestApp;
  let steps: NeutralSellerSteps;

  beforeAll(async () => {
    t = await startSyncApp('hubspot');
    steps = new NeutralSellerSteps(t);
  });

  afterAll(async () => {
    await t?.close();
  });

  const counterPosts = async () =>
    (await steps.sandbox.calls()).filter(
      (c) => c.method === 'POST' && c.path.startsWith('/api/v2/counter-offers'),
    );
  const askCounter = async (expiresInMs: number) => {
    const { requestId } = await steps.activeRequest();
    const offer = await steps.sandbox.makeOffer(requestId, { offer_amount: 300_000 });
    await steps.applyEvents(1);
    const record = await steps.agent.offerRecord(offer.offer_id);
    await steps.agent.moveOffer(record!.id, 'counter_requested', {
      cash_offer_counter_amount: '315000',
      cash_offer_counter_expires: new Date(t.nowMs() + expiresInMs).toISOString(),
    });
    expect((await t.run('crm-changes')).status).toBe('succeeded');
    return offer;
  };

  it('already past at the move: the record names the field, nothing is queued or sent', async () => {
    const offer = await askCounter(-60_000);
    expect((await t.run('outbox-drain')).status).toBe('succeeded');
    const record = await steps.agent.offerRecord(offer.offer_id);
    expect(steps.agent.stageKey(record!)).toBe('counter_requested');
    expect(record!.properties[OFFER.decisionError]).toContain('counter_offer_expires');
    expect(record!.properties[OFFER.decisionError]).toContain('has passed; set a later time');
    expect(await counterPosts()).toEqual([]);
  });

  it('passed while the command waited: refused before any request, said on the record, which shows the offer as it is', async () => {
    const offer = await askCounter(HOUR);
    await t.advanceClock(2 * HOUR);
    await t.run('outbox-drain');
    const record = await steps.agent.offerRecord(offer.offer_id);
    // As for any refused decision: the record shows where the offer is (still undecided).
    expect(steps.agent.stageKey(record!)).toBe('incoming');
    expect(record!.properties[OFFER.decisionError]).toContain(
      `The counter on offer ${offer.offer_id} was not sent: POST /counter-offers not sent: counter_offer_expires`,
    );
    expect(await counterPosts()).toEqual([]);
    const [dead] = await t.ledger.outbox.listByState('acme', ['dead']);
    expect(dead?.operation).toBe('counter_offer');

    // The service never saw it, so the agent may counter again, with a later expiry: sent once, shown
    // (before, "An earlier request on this offer was refused; nothing was sent again", for good).
    await steps.agent.moveOffer(record!.id, 'counter_requested', {
      cash_offer_counter_amount: '316000',
      cash_offer_counter_expires: new Date(t.nowMs() + HOUR).toISOString(),
    });
    expect((await t.run('crm-changes')).status).toBe('succeeded');
    expect((await t.run('outbox-drain')).status).toBe('succeeded');
    const posts = await counterPosts();
    expect(posts.map((c) => c.status)).toEqual([201]);
    const counters = (await steps.sandbox.counters()).filter((c) => c.offer_id === offer.offer_id);
    expect(counters).toHaveLength(1);
    const countered = await steps.agent.offerRecord(offer.offer_id);
    expect(steps.agent.stageKey(countered!)).toBe('countered');
    expect(countered!.properties[OFFER.decisionError] ?? '').toBe('');
    expect(await t.ledger.outbox.listByState('acme', ['dead'])).toEqual([]);
    expect(
      (await t.ledger.recordErrors.listOpen({ brokerageId: 'acme' })).filter(
        (e) => e.recordRef === record!.id,
      ),
    ).toEqual([]);
  });

  it('a counter the service refused is not sent again by a second move: one counter per offer', async () => {
    // Refused by the service itself (a 400 after the request left), unlike one the daemon held back.
    const offer = await askCounter(HOUR);
    await steps.sandbox.faults({ match: 'POST /counter-offers', errorRate: 1, errorStatus: 400 });
    await t.run('outbox-drain');
    await steps.sandbox.clearFaults();
    const record = await steps.agent.offerRecord(offer.offer_id);
    await steps.agent.moveOffer(record!.id, 'counter_requested', { cash_offer_counter_amount: '317000' });
    expect((await t.run('crm-changes')).status).toBe('succeeded');
    await t.run('outbox-drain');
    const again = await steps.agent.offerRecord(offer.offer_id);
    expect(again!.properties[OFFER.decisionError]).toContain('An earlier request on this offer was refused');
  });
});

// HubSpot on SQLite under `readings` for one describe block, with what the late-refusal cases do: a
// pass, a counter running out in an hour, and what its record shows.
function lateRefusalCases(readings: Record<string, unknown>) {
  const app = sellerAppUnderReadings(readings);
  return {
    app,
    settle: async () => {
      await app.t.run('inbox-drain');
      expect((await app.t.run('offers-reconcile')).status).toBe('succeeded');
    },
    countered: () => counteredForAnHour(app.t, app.steps),
    shownOn: async (offerId: number) => {
      const record = await app.steps.agent.offerRecord(offerId);
      return [app.steps.agent.stageKey(record!), record!.properties[OFFER.counterStatus]];
    },
  };
}

// A service that lets no counter lapse (counter_offer_expires only informs), whose buyer refuses a
// counter after its expiry, with no UPDATE: the listing back to active is the only word. Read only
// after the expiry, it looks like a lapse; once the brokerage has seen a counter of its own still
// waiting well past its expiry, it is read as the refusal it is.
describe('a counter refused after its expiry, at a service that lets no counter lapse', () => {
  const { app, settle, countered, shownOn } = lateRefusalCases({
    counterLapse: 'never',
    counteredOfferListedAs: 'countered',
    counterRejectedOfferListedAs: 'active',
    counterRejectedCallback: 'none',
  });

  it('a counter seen waiting well past its expiry teaches that counters do not lapse here; a later refusal read late is shown as refused', async () => {
    const first = await countered();
    await app.t.advanceClock(2 * HOUR);
    await settle();
    expect(await shownOn(first.offer.offer_id)).toEqual(['countered', 'pending']);

    // Nothing read between the second counter's expiry and its buyer's refusal.
    const second = await countered();
    await app.t.advanceClock(2 * HOUR);
    await app.steps.sandbox.rejectCounter(second.counterId);
    const refused = (await app.steps.sandbox.counters()).find((c) => c.counter_offer_id === second.counterId);
    expect(refused?.counter_offer_status).toBe('rejected');
    await settle();
    // Before, `expired`: a lapse was all a late read could see.
    expect(await shownOn(second.offer.offer_id)).toEqual(['counter_rejected', 'rejected']);
    expect(await shownOn(first.offer.offer_id)).toEqual(['countered', 'pending']);
  });
});

// A counter refused near its expiry and read only past it looks like a lapse. With no UPDATE, what
// tells them apart is how this service lists each, once both were seen: refused offers `rejected`,
// lapsed ones reopened. Full soak 20261241: a counter refused around its expiry was shown `expired`.
describe('a counter refused near its expiry and read past it, at a service that lists lapses apart from refusals', () => {
  const { app, settle, countered, shownOn } = lateRefusalCases({
    counterLapse: 'offer-reopened',
    counteredOfferListedAs: 'countered',
    counterRejectedOfferListedAs: 'rejected',
    counterRejectedCallback: 'none',
  });

  it('is shown refused once a refusal and a lapse were each seen listed their own way', async () => {
    // A refusal before the expiry: listed `rejected`.
    const refused = await countered();
    await app.steps.sandbox.rejectCounter(refused.counterId);
    await settle();
    expect(await shownOn(refused.offer.offer_id)).toEqual(['counter_rejected', 'rejected']);
    // A lapse: the offer reopened.
    const lapsed = await countered();
    await app.t.advanceClock(2 * HOUR);
    await settle();
    expect(await shownOn(lapsed.offer.offer_id)).toEqual(['counter_rejected', 'expired']);

    // Refused a minute before its expiry, read only past it (the daemon down across it; or a buyer
    // answering just past it at a service that lapses counters on a schedule).
    const late = await countered();
    await app.t.advanceClock(HOUR - 60_000);
    await app.steps.sandbox.rejectCounter(late.counterId);
    await app.t.advanceClock(2 * 60_000);
    const atService = (await app.steps.sandbox.counters()).find((c) => c.counter_offer_id === late.counterId);
    expect(atService?.counter_offer_status).toBe('rejected');
    await settle();
    expect(await shownOn(late.offer.offer_id)).toEqual(['counter_rejected', 'rejected']);
    expect(await shownOn(lapsed.offer.offer_id)).toEqual(['counter_rejected', 'expired']);
  });
});

// A counter that lapses while a read of its offer is on its way: the read left before the expiry
// and the service answered it after, reopened. Judged by when the read left, the lapse looked like
// the buyer's refusal (full soak 20261258, where the expiry rounded to the second made that window
// hundreds of milliseconds wide; a far service's latency makes it as wide).
describe('a counter that lapses while a read of its offer is on its way', () => {
  const { app, countered, shownOn } = lateRefusalCases({
    counterLapse: 'offer-reopened',
    counteredOfferListedAs: 'countered',
    counterRejectedOfferListedAs: 'rejected',
  });

  it('is shown expired: the answer came after the expiry', async () => {
    const { offer, counterId } = await countered();
    const sent = (await app.steps.sandbox.counters()).find((c) => c.counter_offer_id === counterId) as
      { counter_offer_expires?: string } | undefined;
    const expiresMs = Date.parse(sent?.counter_offer_expires ?? '');
    expect(Number.isFinite(expiresMs)).toBe(true);
    // Both clocks to half a second before the expiry; the service answers offer reads a second after
    // they come (within the daemon's 1.5 s timeout here).
    await app.t.advanceClock(expiresMs - app.t.nowMs() - 500);
    await app.steps.sandbox.faults({ match: 'GET /offers', latencyMs: 1_000 });
    try {
      expect((await app.t.run('offers-reconcile')).status).toBe('succeeded');
    } finally {
      await app.steps.sandbox.clearFaults();
    }
    const atService = (await app.steps.sandbox.counters()).find((c) => c.counter_offer_id === counterId);
    expect(atService?.counter_offer_status).toBe('expired');
    expect(await shownOn(offer.offer_id)).toEqual(['counter_rejected', 'expired']);
  });
});

// The buyer refuses the counter before it runs out, but the UPDATE saying so is applied only after a
// pass has read the offer closed past the counter's expiry, which looks like a lapse. Seen in a
// 200-kill Follow Up Boss soak (seed 20261209): the UPDATE waited 84 s behind kill-cut drains, and
// the record kept counter status `expired` for a counter its buyer had refused.
// Under each UPDATE shape a service may send (its payload is not shown) and each word for a
// withdrawn offer.
const LATE_REFUSAL_READINGS: Record<string, unknown>[] = [
  { counterRejectedCallback: 'flat', withdrawnOfferListedAs: 'withdrawn' },
  { counterRejectedCallback: 'nested', withdrawnOfferListedAs: 'cancelled' },
  { counterRejectedCallback: 'string-ids', withdrawnOfferListedAs: 'withdrawn' },
];
describe.each(LATE_REFUSAL_READINGS.map((r) => [JSON.stringify(r), r] as const))(
  "a buyer's refusal applied after the listings were read as a lapse, under %s",
  (_name, readings) => {
    let t: SyncTestApp;
    let steps: NeutralSellerSteps;

    beforeAll(async () => {
      t = await startSyncApp('hubspot');
      steps = new NeutralSellerSteps(t);
      await steps.sandbox.specReadings({ counteredOfferListedAs: 'countered', ...readings });
    });

    afterAll(async () => {
      await t?.close();
    });

    const shownOn = async (offerId: number) => {
      const record = await steps.agent.offerRecord(offerId);
      return [steps.agent.stageKey(record!), record!.properties[OFFER.counterStatus]];
    };

    // An offer countered for an hour, shown Countered.
    const countered = async () => {
      const { offer, counterId } = await counteredForAnHour(t, steps);
      expect(await shownOn(offer.offer_id)).toEqual(['countered', 'pending']);
      return { offer, counterId };
    };
    const updateWaiting = () =>
      waitFor(async () => (await t.ledger.inbox.depth('acme')).pending >= 1, {
        what: 'the UPDATE in the inbox',
      });

    it('shows the counter refused once the UPDATE is applied, not lapsed', async () => {
      const { offer, counterId } = await countered();
      // Refused within its hour; the UPDATE reaches the inbox and waits there.
      await steps.sandbox.rejectCounter(counterId);
      await updateWaiting();
      await t.advanceClock(2 * HOUR);
      expect((await t.run('offers-reconcile')).status).toBe('succeeded');
      // All the listings can tell: closed after the expiry, so lapsed.
      expect(await shownOn(offer.offer_id)).toEqual(['counter_rejected', 'expired']);

      await t.run('inbox-drain');
      // Before, `expired` stayed: an answered counter took no UPDATE.
      expect(await shownOn(offer.offer_id)).toEqual(['counter_rejected', 'rejected']);
      expect((await t.run('offers-reconcile')).status).toBe('succeeded');
      expect(await shownOn(offer.offer_id)).toEqual(['counter_rejected', 'rejected']);
      expect((await t.ledger.inbox.depth('acme')).flagged ?? 0).toBe(0);
    });

    it('shows the counter refused once the UPDATE is applied, not ended by the withdrawal read before it', async () => {
      // A refused counter leaves its offer active, and the buyer then takes the offer back.
      await steps.sandbox.specReadings({ counterRejectedOfferListedAs: 'active' });
      const { offer, counterId } = await countered();
      await steps.sandbox.rejectCounter(counterId);
      await updateWaiting();
      await steps.sandbox.withdrawOffer(offer.offer_id);
      expect((await t.run('offers-reconcile')).status).toBe('succeeded');
      // All the listings can tell: the offer withdrawn while the counter waited on it.
      expect(await shownOn(offer.offer_id)).toEqual(['counter_rejected', 'withdrawn']);

      await t.run('inbox-drain');
      expect(await shownOn(offer.offer_id)).toEqual(['counter_rejected', 'rejected']);
      expect((await t.run('offers-reconcile')).status).toBe('succeeded');
      expect(await shownOn(offer.offer_id)).toEqual(['counter_rejected', 'rejected']);
    });

    // A 200-kill soak on three workers (seed 20261233) refused such an UPDATE, "the service still
    // shows offer 51 not listed": the buyer refused the counter a second after it was sent, the
    // UPDATE waited 2 minutes behind kill-cut drains, and by then the offer had run out and the
    // service, which drops expired offers from GET /offers, no longer listed it.
    it('shows the counter refused once the UPDATE is applied, though its offer ran out and is no longer listed', async () => {
      await steps.sandbox.specReadings({
        counterRejectedOfferListedAs: 'active',
        expiredOfferListedAs: 'dropped',
      });
      const { offer, counterId } = await countered();
      await steps.sandbox.rejectCounter(counterId);
      await updateWaiting();
      await t.advanceClock(25 * HOUR);
      expect((await t.run('offers-reconcile')).status).toBe('succeeded');
      // All the listings can tell: the offer gone after the counter's expiry and its own.
      expect(await shownOn(offer.offer_id)).toEqual(['counter_rejected', 'expired']);

      await t.run('inbox-drain');
      expect((await t.ledger.inbox.depth('acme')).flagged ?? 0).toBe(0);
      expect(await shownOn(offer.offer_id)).toEqual(['counter_rejected', 'rejected']);
      // The decision history tells the same.
      const lastShown = (await t.ledger.history.list(`offer:${offer.offer_id}`))
        .filter((e) => e.kind === 'record_shown')
        .at(-1);
      expect(JSON.parse(lastShown?.detail ?? '{}')).toMatchObject({
        status: 'expired',
        counterStatus: 'rejected',
      });
      expect((await t.run('offers-reconcile')).status).toBe('succeeded');
      expect(await shownOn(offer.offer_id)).toEqual(['counter_rejected', 'rejected']);
      await steps.sandbox.specReadings({ expiredOfferListedAs: 'expired' });
    });

    // Last: a counter seen waiting long past its expiry teaches that counters outlive it here.
    it('a forged UPDATE naming another counter id leaves the lapse read from the listings', async () => {
      const { offer, counterId } = await countered();
      await t.advanceClock(2 * HOUR);
      expect((await t.run('offers-reconcile')).status).toBe('succeeded');
      expect(await shownOn(offer.offer_id)).toEqual(['countered', 'pending']);
      // The counter lapses at a service that lets it, and a pass reads that.
      await steps.sandbox.specReadings({ counterLapse: 'offer-expired' });
      await t.advanceClock(60_000);
      expect((await t.run('offers-reconcile')).status).toBe('succeeded');
      await steps.sandbox.specReadings({ counterLapse: 'never' });
      expect(await shownOn(offer.offer_id)).toEqual(['counter_rejected', 'expired']);
      const forged = await fetch(t.hookUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          event: 'UPDATE',
          counter_offer_id: counterId + 1000,
          offer_id: offer.offer_id,
          offer_request_id: offer.offer_request_id,
          counter_offer_status: 'rejected',
        }),
      });
      expect(forged.status).toBe(200);
      await t.run('inbox-drain');
      expect(await shownOn(offer.offer_id)).toEqual(['counter_rejected', 'expired']);
    });
  },
);

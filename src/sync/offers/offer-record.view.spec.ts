import type { Offer } from '../../cash-offer/schema';
import { OUTLIVED_AFTER_MS, learnCounter, offerRecordView, type CounterKnowledge } from './offer-record.view';
import type { OfferStage } from './offer-record.properties';

const offer = (id: number, status: string, extra: Partial<Offer> = {}): Offer =>
  ({
    offer_id: id,
    offer_request_id: 7,
    offer_amount: 300_000,
    offer_status: status,
    offer_is_counter_offer: false,
    ...extra,
  }) as Offer;
const byCounter = (id: number, counterId: number, status = 'accepted'): Offer =>
  offer(id, status, { offer_is_counter_offer: true, counter_offer_id: counterId });

interface Row {
  case: string;
  offer: Offer;
  siblings?: Offer[];
  counter?: CounterKnowledge;
  stage: OfferStage;
  counterStatus?: string;
  counterId?: string;
  onCreateOnly?: boolean;
  // When the facts were read (epoch ms), and the last read that showed the record as it was.
  readAtMs?: number;
  answeredAtMs?: number;
  shownAsWasAtMs?: number;
  countersOutliveExpiry?: boolean;
  refusalListings?: ReadonlySet<string>;
  countersOutliveSellerReject?: boolean;
}

// One row per fact the service can show, each reading of the spec's open questions included.
const unflagged = (id: number, status: string, extra: Partial<Offer> = {}): Offer =>
  offer(id, status, { offer_is_counter_offer: null, ...extra });

const ROWS: Row[] = [
  { case: 'a new offer', offer: offer(1, 'active'), stage: 'incoming', onCreateOnly: true },
  // A service that leaves offer_is_counter_offer null on every offer ("boolean, nullable").
  {
    case: 'flag null: the accepted offer of our counter amount is the buyer accepting our counter',
    offer: unflagged(1, 'rejected'),
    siblings: [unflagged(2, 'accepted', { offer_amount: 345_000 })],
    counter: { status: 'pending', amount: 345_000 },
    stage: 'countered',
    counterStatus: 'accepted',
  },
  {
    case: 'flag null: an accepted offer naming our counter is its acceptance, whatever its amount',
    offer: unflagged(1, 'rejected'),
    siblings: [unflagged(2, 'accepted', { offer_amount: 1, counter_offer_id: 90 })],
    counter: { id: '90', status: 'pending', amount: 345_000 },
    stage: 'countered',
    counterStatus: 'accepted',
    counterId: '90',
  },
  {
    case: 'flag null: another accepted offer of another amount is the cascade, our counter refused',
    offer: unflagged(1, 'rejected'),
    siblings: [unflagged(2, 'accepted', { offer_amount: 351_000 })],
    counter: { status: 'pending', amount: 345_000 },
    stage: 'counter_rejected',
    counterStatus: 'rejected',
  },
  {
    case: 'flag false rules an offer of our counter amount out: the cascade',
    offer: offer(1, 'rejected'),
    siblings: [offer(2, 'accepted', { offer_amount: 345_000 })],
    counter: { status: 'pending', amount: 345_000 },
    stage: 'counter_rejected',
    counterStatus: 'rejected',
  },
  { case: 'an offer of unknown status', offer: offer(1, 'on_hold'), stage: 'incoming', onCreateOnly: true },
  { case: 'accepted', offer: offer(1, 'accepted'), stage: 'accepted' },
  { case: 'rejected', offer: offer(1, 'rejected'), stage: 'rejected' },
  { case: 'expired', offer: offer(1, 'expired'), stage: 'expired', onCreateOnly: true },
  { case: "refused, in another service's word", offer: offer(1, 'Declined'), stage: 'rejected' },
  { case: 'withdrawn by its buyer', offer: offer(1, 'withdrawn'), stage: 'rejected' },
  { case: "withdrawn, in another service's word", offer: offer(1, 'Cancelled'), stage: 'rejected' },
  {
    case: 'withdrawn while our counter waited: the counter is what the agent follows',
    offer: offer(1, 'withdrawn'),
    counter: { id: '90', status: 'withdrawn' },
    stage: 'counter_rejected',
    counterStatus: 'withdrawn',
  },
  { case: 'countered (status word)', offer: offer(1, 'countered'), stage: 'countered' },
  {
    case: 'countered, the service keeps the offer active until the buyer answers',
    offer: offer(1, 'active'),
    counter: { id: '90', status: 'pending', listedAtSend: 'active' },
    stage: 'countered',
    counterStatus: 'pending',
    counterId: '90',
  },
  {
    case: 'countered, answered with no body (no counter id)',
    offer: offer(1, 'countered'),
    counter: { status: 'pending', listedAtSend: 'countered' },
    stage: 'countered',
    counterStatus: 'pending',
  },
  {
    case: "countered, a service whose pending word is 'open'",
    offer: offer(1, 'active'),
    counter: { id: '90', status: 'open' },
    stage: 'countered',
    counterStatus: 'open',
  },
  {
    case: 'the buyer accepted the counter: the cascade rejected the original, which still shows countered',
    offer: offer(1, 'rejected'),
    siblings: [byCounter(2, 90)],
    counter: { id: '90', status: 'pending', listedAtSend: 'countered' },
    stage: 'countered',
    counterStatus: 'accepted',
    counterId: '90',
  },
  {
    case: 'the buyer accepted a counter whose id we never learnt: the id is read from the new offer',
    offer: offer(1, 'rejected'),
    siblings: [byCounter(2, 91)],
    counter: { status: 'pending', listedAtSend: 'active' },
    stage: 'countered',
    counterStatus: 'accepted',
    counterId: '91',
  },
  {
    case: 'the buyer accepted the counter, and the new offer names no counter (the spec shows no such field)',
    offer: offer(1, 'rejected'),
    siblings: [offer(2, 'accepted', { offer_is_counter_offer: true, offer_amount: 315_000 })],
    counter: { id: '90', status: 'pending', listedAtSend: 'countered', amount: 315_000 },
    stage: 'countered',
    counterStatus: 'accepted',
    counterId: '90',
  },
  {
    case: 'an accepted counter offer that names no counter and has another amount is not ours',
    offer: offer(1, 'rejected'),
    siblings: [offer(2, 'accepted', { offer_is_counter_offer: true, offer_amount: 299_000 })],
    counter: { id: '90', status: 'pending', listedAtSend: 'countered', amount: 315_000 },
    stage: 'counter_rejected',
    counterStatus: 'rejected',
  },
  {
    case: 'neither side names the counter, no amount known, no other counter on the request: ours',
    offer: offer(1, 'rejected'),
    siblings: [offer(2, 'accepted', { offer_is_counter_offer: true })],
    counter: { status: 'pending', listedAtSend: 'countered' },
    stage: 'countered',
    counterStatus: 'accepted',
  },
  {
    case: 'the buyer rejected the counter (UPDATE applied)',
    offer: offer(1, 'rejected'),
    counter: { id: '90', status: 'rejected' },
    stage: 'counter_rejected',
    counterStatus: 'rejected',
  },
  {
    case: 'the buyer rejected the counter, the UPDATE not (yet) here: the listing says so',
    offer: offer(1, 'rejected'),
    counter: { id: '90', status: 'pending', listedAtSend: 'countered' },
    stage: 'counter_rejected',
    counterStatus: 'rejected',
  },
  {
    case: 'listed countered at send, active again with no accepted counter offer: the buyer refused, the UPDATE not here',
    offer: offer(1, 'active'),
    counter: { id: '90', status: 'pending', listedAtSend: 'countered' },
    stage: 'counter_rejected',
    counterStatus: 'rejected',
  },
  {
    case: "listed under another service's own waiting word at send, active again: refused too",
    offer: offer(1, 'active'),
    counter: { status: 'open', listedAtSend: 'on_hold' },
    stage: 'counter_rejected',
    counterStatus: 'rejected',
  },
  {
    case: 'a service that lists a countered offer active: active says nothing, pending until the UPDATE',
    offer: offer(1, 'active'),
    counter: { id: '90', status: 'pending', listedAtSend: 'active' },
    stage: 'countered',
    counterStatus: 'pending',
  },
  {
    // A rejected offer is never reopened otherwise (the readings e2e under `counteredOfferListedAs:
    // rejected` with no UPDATE: it stayed Countered, pending, for good).
    case: 'a service that lists a countered offer rejected at once, active later: the buyer refused',
    offer: offer(1, 'active'),
    counter: { id: '90', status: 'pending', listedAtSend: 'rejected' },
    stage: 'counter_rejected',
    counterStatus: 'rejected',
  },
  {
    case: 'no listing known from the send: nothing inferred from active',
    offer: offer(1, 'active'),
    counter: { id: '90', status: 'pending' },
    stage: 'countered',
    counterStatus: 'pending',
  },
  {
    case: 'listed countered at send, active again, the buyer accepted the counter (its offer listed): accepted',
    offer: offer(1, 'active'),
    siblings: [byCounter(2, 90)],
    counter: { id: '90', status: 'pending', listedAtSend: 'countered' },
    stage: 'countered',
    counterStatus: 'accepted',
    counterId: '90',
  },
  {
    case: 'refused and back to active, then the agent accepts the original offer: Accepted',
    offer: offer(1, 'accepted'),
    counter: { id: '90', status: 'rejected', listedAtSend: 'countered' },
    stage: 'accepted',
    counterStatus: 'rejected',
  },
  {
    case: 'refused and back to active, then the agent rejects the original offer: the refused counter still shows',
    offer: offer(1, 'rejected'),
    counter: { id: '90', status: 'rejected', listedAtSend: 'countered' },
    stage: 'counter_rejected',
    counterStatus: 'rejected',
  },
  {
    case: 'refused, the offer left countered by the service: only the UPDATE tells',
    offer: offer(1, 'countered'),
    counter: { id: '90', status: 'rejected', listedAtSend: 'countered' },
    stage: 'counter_rejected',
    counterStatus: 'rejected',
  },
  {
    case: 'a service that lists a countered offer rejected at once: pending until the buyer answers',
    offer: offer(1, 'rejected'),
    counter: { id: '90', status: 'pending', listedAtSend: 'rejected' },
    stage: 'countered',
    counterStatus: 'pending',
  },
  {
    case: 'another offer accepted: the cascade rejected our counter too',
    offer: offer(1, 'rejected'),
    siblings: [offer(3, 'accepted')],
    counter: { id: '90', status: 'pending', listedAtSend: 'rejected' },
    stage: 'counter_rejected',
    counterStatus: 'rejected',
  },
  {
    case: 'the seller accepted the countered offer itself (a service that allows it): the cascade ended our counter',
    offer: offer(1, 'accepted'),
    siblings: [offer(3, 'rejected')],
    counter: { id: '90', status: 'pending', listedAtSend: 'active' },
    stage: 'accepted',
    counterStatus: 'rejected',
  },
  {
    case: 'the seller accepted the countered offer itself, our counter answered with no id: ended too',
    offer: offer(1, 'accepted'),
    counter: { status: 'open', listedAtSend: 'countered' },
    stage: 'accepted',
    counterStatus: 'rejected',
  },
  {
    case: 'a stale listing (still countered) after the buyer rejected: the answer stays',
    offer: offer(1, 'countered'),
    counter: { id: '90', status: 'rejected' },
    stage: 'counter_rejected',
    counterStatus: 'rejected',
  },
  {
    case: 'a stale listing (still active) after the buyer accepted: the answer stays',
    offer: offer(1, 'active'),
    counter: { id: '90', status: 'accepted' },
    stage: 'countered',
    counterStatus: 'accepted',
  },
  {
    case: "a service's own refusal word for the counter",
    offer: offer(1, 'rejected'),
    counter: { id: '90', status: 'declined' },
    stage: 'counter_rejected',
    counterStatus: 'declined',
  },
  {
    case: "the buyer's new offer made by accepting our counter",
    offer: byCounter(2, 90),
    siblings: [offer(1, 'rejected')],
    stage: 'accepted',
    counterId: '90',
  },
  {
    case: 'the accepted counter of another of our offers is not this one',
    offer: offer(1, 'rejected'),
    siblings: [byCounter(2, 77)],
    counter: { id: '90', status: 'pending', listedAtSend: 'countered' },
    stage: 'counter_rejected',
    counterStatus: 'rejected',
  },
  // The countered offer closed with no answer of the buyer's known (issue 27's convergence: a
  // record showed Countered, counter pending, for an offer its buyer had taken back).
  {
    case: 'withdrawn while our counter waited, no answer known: the counter ended with it',
    offer: offer(1, 'withdrawn'),
    counter: { id: '90', status: 'pending', listedAtSend: 'countered' },
    stage: 'counter_rejected',
    counterStatus: 'withdrawn',
  },
  {
    case: 'withdrawn while our counter waited, another offer accepted since: the withdrawal ended it, not the cascade',
    offer: offer(1, 'withdrawn'),
    siblings: [offer(2, 'accepted')],
    counter: { id: '90', status: 'pending', listedAtSend: 'countered' },
    stage: 'counter_rejected',
    counterStatus: 'withdrawn',
  },
  {
    case: "withdrawn in another service's word while our counter waited",
    offer: offer(1, 'cancelled'),
    counter: { id: '90', status: 'pending', listedAtSend: 'active' },
    stage: 'counter_rejected',
    counterStatus: 'withdrawn',
  },
  {
    case: 'listed expired while our counter waited (the counter lapsed, and the offer with it)',
    offer: offer(1, 'expired'),
    counter: { id: '90', status: 'pending', listedAtSend: 'countered', expiresMs: 1_000 },
    readAtMs: 2_000,
    stage: 'counter_rejected',
    counterStatus: 'expired',
  },
  {
    case: 'listed expired while our counter waited, a service that lists a countered offer active',
    offer: offer(1, 'expired'),
    counter: { status: 'pending', listedAtSend: 'active' },
    stage: 'counter_rejected',
    counterStatus: 'expired',
  },
  {
    case: "listed active again after 'countered', read after our counter's expiry: it lapsed",
    offer: offer(1, 'active'),
    counter: { id: '90', status: 'pending', listedAtSend: 'countered', expiresMs: 1_000 },
    readAtMs: 1_000,
    stage: 'counter_rejected',
    counterStatus: 'expired',
  },
  {
    case: "listed active again after 'countered', read before our counter's expiry: the buyer refused it",
    offer: offer(1, 'active'),
    counter: { id: '90', status: 'pending', listedAtSend: 'countered', expiresMs: 5_000 },
    readAtMs: 1_000,
    answeredAtMs: 1_020,
    stage: 'counter_rejected',
    counterStatus: 'rejected',
  },
  {
    case: "listed active again after 'countered', by a read that left before our counter's expiry and was answered after it: it lapsed",
    offer: offer(1, 'active'),
    counter: { id: '90', status: 'pending', listedAtSend: 'countered', expiresMs: 1_000 },
    readAtMs: 990,
    answeredAtMs: 1_010,
    stage: 'counter_rejected',
    counterStatus: 'expired',
  },
  {
    case: "listed rejected after 'countered', read after our counter's expiry: it lapsed",
    offer: offer(1, 'rejected'),
    counter: { id: '90', status: 'pending', listedAtSend: 'countered', expiresMs: 1_000 },
    readAtMs: 3_000,
    stage: 'counter_rejected',
    counterStatus: 'expired',
  },
  {
    case: "listed active again, last seen waiting before our counter's expiry: it lapsed in between",
    offer: offer(1, 'active'),
    counter: { id: '90', status: 'pending', listedAtSend: 'countered', expiresMs: 1_000 },
    readAtMs: 3_000,
    shownAsWasAtMs: 900,
    stage: 'counter_rejected',
    counterStatus: 'expired',
  },
  {
    case: "listed active again, seen waiting seconds after our counter's expiry: a lapse the service made a little late",
    offer: offer(1, 'active'),
    counter: { id: '90', status: 'pending', listedAtSend: 'countered', expiresMs: 1_000 },
    readAtMs: 5_000,
    shownAsWasAtMs: 3_600,
    stage: 'counter_rejected',
    counterStatus: 'expired',
  },
  {
    case: "listed active again, still seen waiting well after our counter's expiry: not its lapse, the buyer refused it",
    offer: offer(1, 'active'),
    counter: { id: '90', status: 'pending', listedAtSend: 'countered', expiresMs: 1_000 },
    readAtMs: 1_000 + OUTLIVED_AFTER_MS + 2_000,
    shownAsWasAtMs: 1_000 + OUTLIVED_AFTER_MS,
    stage: 'counter_rejected',
    counterStatus: 'rejected',
  },
  {
    case: "listed active again, last seen waiting before our counter's expiry, at a service seen to keep counters past theirs: the buyer refused it",
    offer: offer(1, 'active'),
    counter: { id: '90', status: 'pending', listedAtSend: 'countered', expiresMs: 1_000 },
    readAtMs: 3_000,
    shownAsWasAtMs: 900,
    countersOutliveExpiry: true,
    stage: 'counter_rejected',
    counterStatus: 'rejected',
  },
  {
    case: "listed rejected just past our counter's expiry, as this service lists refusals and not lapses: the buyer refused it",
    offer: offer(1, 'rejected'),
    counter: { id: '90', status: 'pending', listedAtSend: 'countered', expiresMs: 1_000 },
    readAtMs: 3_000,
    shownAsWasAtMs: 900,
    refusalListings: new Set(['rejected']),
    stage: 'counter_rejected',
    counterStatus: 'rejected',
  },
  {
    case: "listed active just past our counter's expiry, where refusals are listed rejected: a lapse",
    offer: offer(1, 'active'),
    counter: { id: '90', status: 'pending', listedAtSend: 'countered', expiresMs: 1_000 },
    readAtMs: 3_000,
    shownAsWasAtMs: 900,
    refusalListings: new Set(['rejected']),
    stage: 'counter_rejected',
    counterStatus: 'expired',
  },
  {
    case: 'listed active by a read made before the counter was known: the offer as it was, nothing inferred',
    offer: offer(1, 'active'),
    counter: { id: '90', status: 'pending', listedAtSend: 'rejected', knownSinceMs: 2_000 },
    readAtMs: 1_000,
    stage: 'countered',
    counterStatus: 'pending',
  },
  {
    case: 'listed active by a read made after the counter was known: the buyer refused it',
    offer: offer(1, 'active'),
    counter: { id: '90', status: 'pending', listedAtSend: 'rejected', knownSinceMs: 2_000 },
    readAtMs: 2_000,
    stage: 'counter_rejected',
    counterStatus: 'rejected',
  },
  {
    case: 'a counter sent without an expiry never lapses: listed active again, the buyer refused it',
    offer: offer(1, 'active'),
    counter: { id: '90', status: 'pending', listedAtSend: 'countered', expiresMs: null },
    readAtMs: 3_000,
    stage: 'counter_rejected',
    counterStatus: 'rejected',
  },
  {
    case: 'a lapse learnt earlier is kept when the offer is later listed otherwise',
    offer: offer(1, 'active'),
    counter: { id: '90', status: 'expired', listedAtSend: 'countered', expiresMs: 1_000 },
    stage: 'counter_rejected',
    counterStatus: 'expired',
  },
  // The seller's reject of an offer whose counter waits: what it does to the counter is not shown.
  {
    case: "the seller's reject taken to end our counter, at a service not seen to leave one standing",
    offer: offer(1, 'rejected'),
    counter: { id: '90', status: 'rejected', endedBySeller: 'pending', listedAtSend: 'active' },
    stage: 'counter_rejected',
    counterStatus: 'rejected',
  },
  {
    case: "the seller's reject at a service seen to leave counters standing: the offer turned down, the counter waiting",
    offer: offer(1, 'rejected'),
    counter: { id: '90', status: 'rejected', endedBySeller: 'open', listedAtSend: 'active' },
    countersOutliveSellerReject: true,
    stage: 'rejected',
    counterStatus: 'open',
  },
  {
    case: "a counter left standing by the seller's reject, then accepted by its buyer",
    offer: offer(1, 'rejected'),
    siblings: [byCounter(2, 90)],
    counter: { id: '90', status: 'rejected', endedBySeller: 'pending', listedAtSend: 'countered' },
    stage: 'countered',
    counterStatus: 'accepted',
    counterId: '90',
  },
  {
    case: "a counter left standing by the seller's reject, ended by the cascade of another offer's acceptance",
    offer: offer(1, 'rejected'),
    siblings: [offer(2, 'accepted', { offer_amount: 310_000 })],
    counter: { id: '90', status: 'rejected', endedBySeller: 'pending', amount: 345_000 },
    countersOutliveSellerReject: true,
    stage: 'counter_rejected',
    counterStatus: 'rejected',
  },
];

describe('offerRecordView: what an offer record shows', () => {
  it.each(ROWS)('$case', (row) => {
    const view = offerRecordView({
      offer: row.offer,
      requestOffers: [row.offer, ...(row.siblings ?? [])],
      counter: row.counter,
      readAtMs: row.readAtMs,
      answeredAtMs: row.answeredAtMs,
      shownAsWasAtMs: row.shownAsWasAtMs,
      countersOutliveExpiry: row.countersOutliveExpiry,
      refusalListings: row.refusalListings,
      countersOutliveSellerReject: row.countersOutliveSellerReject,
    });
    expect(view.stage).toBe(row.stage);
    expect(view.offerStatus).toBe(row.offer.offer_status);
    expect(view.counterStatus).toBe(row.counterStatus);
    if (row.counterId !== undefined) expect(view.counterId).toBe(row.counterId);
    expect(view.stageOnCreateOnly).toBe(row.onCreateOnly ?? false);
  });
});

describe('learnCounter', () => {
  const endedBySeller: CounterKnowledge = { id: '90', status: 'rejected', endedBySeller: 'pending' };

  it("keeps a counter taken as ended by the seller's reject while it is shown standing", () => {
    expect(learnCounter(endedBySeller, { counterStatus: 'pending' })).toEqual(endedBySeller);
  });

  it("takes its buyer's answer", () => {
    expect(learnCounter(endedBySeller, { counterStatus: 'accepted' }).status).toBe('accepted');
  });
});

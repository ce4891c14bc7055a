import type { Offer } from '../../cash-offer/schema';
import type { OfferStage } from './offer-record.properties';
import { ranOutBy } from '../common/expiry';

// What the ledger knows of the counter this brokerage made on an offer.
export interface CounterKnowledge {
  // The service's counter id; absent when the counter's answer carried none (a 204, an empty 200).
  id?: string;
  // The last status known: the service's word for a pending counter, or a buyer's answer.
  status: string;
  // The countered offer's status as the service listed it right after the counter was sent: a
  // service that lists a countered offer as `rejected` at once says nothing by listing it so later.
  listedAtSend?: string;
  // The amount we countered with: the offer a buyer makes by accepting it carries it.
  amount?: number;
  // When the counter runs out (`counter_offer_expires`, epoch ms): null when it was sent without
  // one; absent in links written before the offer clocks read it (they look it up once).
  expiresMs?: number | null;
  // When the ledger came to know of the counter (its link, written on the send's answer): a listing
  // read before then shows the offer as it was before the counter, and tells nothing of its answer.
  knownSinceMs?: number;
  // The seller turned the countered offer down while the counter waited: the counter was taken as
  // ended with it (status `rejected`), and this is the word it waited under before.
  endedBySeller?: string;
}

export interface OfferRecordFacts {
  offer: Offer;
  // Every offer the service lists on the same request (the cascade and the offer a buyer makes by
  // accepting our counter are read from them); may include `offer` itself.
  requestOffers: readonly Offer[];
  counter?: CounterKnowledge;
  // Counter ids the ledger links to other offers of the request, and how many counters on the
  // request have no id: an accepted counter offer is taken as ours only when it can be no other's.
  otherCounters?: { ids: ReadonlySet<string>; unnamed: number };
  // When the service's facts were read (epoch ms): a refusal read from the listings only after our
  // counter's own expiry may be its lapse.
  readAtMs?: number;
  // When that read's answer came (epoch ms; absent: readAtMs): the service made the listing no
  // later. A read that left before our counter's expiry and was answered after it may show the
  // counter's lapse; taken as made before the expiry, a lapse the service made as the read was on
  // its way was shown as the buyer's refusal.
  answeredAtMs?: number;
  // The last read before this one that showed the record as it was (its ledger link's read time):
  // an offer still waiting then, after our counter's expiry, was not lapsed by it.
  shownAsWasAtMs?: number;
  // This brokerage's service has been seen to keep a counter waiting well past its own expiry
  // (`outlivedExpiry` on a counter link): it lets no counter lapse, so a counter seen ended after its
  // expiry was refused by its buyer.
  countersOutliveExpiry?: boolean;
  // How this brokerage's service lists an offer whose buyer refused a counter, where lapsed counters
  // were seen listed otherwise (refusalListingsApartFromLapses): a counter seen ended so after its
  // expiry was refused.
  refusalListings?: ReadonlySet<string>;
  // This brokerage's service has been seen leaving a counter standing through the seller's reject of
  // its offer (a buyer accepted one after it): a counter the seller's reject was taken to end still
  // waits on its buyer.
  countersOutliveSellerReject?: boolean;
}

export interface OfferRecordView {
  stage: OfferStage;
  offerStatus: string;
  counterId?: string;
  counterStatus?: string;
  // `incoming` and `expired` only place a new record: an undecided or lapsed offer never pulls a
  // record back from the stage an agent moved it to (accept requested, counter requested ...).
  stageOnCreateOnly: boolean;
}

const ANSWERED_COUNTER = new Set([
  'accepted',
  'rejected',
  'declined',
  'expired',
  'withdrawn',
  'canceled',
  'cancelled',
]);
const REFUSED_COUNTER = new Set(['rejected', 'declined', 'expired', 'withdrawn', 'canceled', 'cancelled']);

// Words a service may list an offer under once its buyer took it back (the spec shows no status
// beyond active, accepted and rejected): the offer is closed without a decision of ours, so its record
// leaves Incoming for Rejected (the closed-without-a-sale stage) and shows the service's word.
const WITHDRAWN_OFFER = new Set(['withdrawn', 'canceled', 'cancelled', 'rescinded', 'retracted', 'revoked']);

export function isWithdrawnOffer(status: string): boolean {
  return WITHDRAWN_OFFER.has(status.toLowerCase());
}

// The offer ended without a decision of the seller's: it ran out, or its buyer took it back.
export function endedWithoutDecision(status: string): boolean {
  return status.toLowerCase() === 'expired' || isWithdrawnOffer(status);
}

// The offer is closed without a sale: refused (`rejected`, or `declined` in another service's word),
// or ended without a decision. A seller's reject of it has nothing left to do.
export function closedWithoutSale(status: string): boolean {
  const word = status.toLowerCase();
  return word === 'rejected' || word === 'declined' || endedWithoutDecision(word);
}

// A buyer's answer that refused the counter (or let it lapse).
export function isRefusedCounter(status: string | undefined): boolean {
  return status !== undefined && REFUSED_COUNTER.has(status.toLowerCase());
}

// A buyer's answer to a counter is final: no later listing or event moves it back to pending.
export function isAnsweredCounter(status: string | undefined): boolean {
  return status !== undefined && ANSWERED_COUNTER.has(status.toLowerCase());
}

// The ends counterStatusOf infers from the listings for a counter its buyer said nothing of (it
// lapsed, or its offer was withdrawn): the buyer's own refusal, read later, replaces them.
export function isInferredCounterEnd(status: string): boolean {
  return ['expired', 'withdrawn'].includes(status.toLowerCase());
}

// A counter its buyer may still answer: one waiting, or one the seller's reject was taken to end (a
// service may leave it standing).
export function mayStillBeAnswered(counter: CounterKnowledge): boolean {
  return !isAnsweredCounter(counter.status) || counter.endedBySeller !== undefined;
}

// The offer a buyer made by accepting our counter (the spec: "a new offer with status accepted").
export function acceptedCounterOffer(facts: OfferRecordFacts): Offer | undefined {
  const { offer, requestOffers, counter } = facts;
  if (!counter) return undefined;
  return requestOffers.find(
    (o) =>
      o.offer_id !== offer.offer_id &&
      o.offer_status === 'accepted' &&
      mayAnswerCounter(o, counter.amount) &&
      madeByOurCounter(o, counter, facts.otherCounters),
  );
}

// Whether an accepted offer can be one a buyer made by accepting a counter: it says so
// (`offer_is_counter_offer`), or, where the service leaves that flag null ("boolean, nullable"), it
// names a counter or carries the amount we countered with. A flag of false rules it out.
export function mayAnswerCounter(offer: Offer, counterAmount: number | undefined): boolean {
  if (offer.offer_is_counter_offer === true) return true;
  if (offer.offer_is_counter_offer === false) return false;
  return (
    namedCounterOf(offer) !== undefined ||
    (counterAmount !== undefined && offer.offer_amount === counterAmount)
  );
}

// The counter an offer says it accepts, when it says so: the spec's offer has no such field, so a
// service may name it (`counter_offer_id`) or not.
export function namedCounterOf(offer: Offer): string | undefined {
  const id = offer.counter_offer_id;
  return id !== undefined && id !== null && String(id) !== '' ? String(id) : undefined;
}

function madeByOurCounter(
  accepted: Offer,
  counter: CounterKnowledge,
  others: OfferRecordFacts['otherCounters'],
): boolean {
  const named = namedCounterOf(accepted);
  if (named !== undefined && counter.id !== undefined) return named === counter.id;
  if (named !== undefined && (others?.ids.has(named) ?? false)) return false;
  // One side's id is missing (our counter answered with no body, or an offer that names no counter):
  // ours when it carries our counter's amount, or when no other counter on the request, named or
  // not, can have made it.
  if (counter.amount !== undefined) return accepted.offer_amount === counter.amount;
  const unnamedOthers = others?.unnamed ?? 0;
  return named !== undefined ? unnamedOthers === 0 : unnamedOthers + (others?.ids.size ?? 0) === 0;
}

// The counter's status as the service's facts show it, never less answered than what is known.
export function counterStatusOf(
  facts: OfferRecordFacts,
  acceptedBy = acceptedCounterOffer(facts),
): string | undefined {
  const { offer, counter } = facts;
  if (!counter) return undefined;
  if (acceptedBy) return 'accepted';
  const standing = standingAfterSellerReject(facts);
  if (standing !== undefined) return standing;
  if (isAnsweredCounter(counter.status)) return counter.status;
  // A listing read before the counter was known (a pass that read before the send and wrote after
  // it) shows the offer as it was: nothing is inferred from it (a targeted soak's pass read an offer
  // `active` before its counter, wrote after it, and took that for the buyer's refusal).
  const readBeforeKnown =
    facts.readAtMs !== undefined &&
    counter.knownSinceMs !== undefined &&
    facts.readAtMs < counter.knownSinceMs;
  if (readBeforeKnown) return counter.status;
  // The countered offer closed without a decision while our counter waited: its buyer took it back,
  // or it ran out (a service may let a counter lapse with its offer, or the offer with its counter).
  // The counter ended with it, before any cascade (which rejects only offers still undecided);
  // under a service that lists a countered offer so from the start (a word never seen), the
  // listing says nothing.
  const listed = offer.offer_status.toLowerCase();
  if (isWithdrawnOffer(listed) && !isWithdrawnOffer(counter.listedAtSend ?? '')) return 'withdrawn';
  if (listed === 'expired' && counter.listedAtSend !== 'expired') return 'expired';
  // The cascade: "every other offer and counter offer on the request becomes rejected". The offer
  // accepted may be the countered one itself: a service that lets the seller accept an offer whose
  // counter waits ends that counter with the rest (it is not the offer accepted).
  if (anotherOfferAccepted(facts)) return 'rejected';
  if (listed === 'accepted') return 'rejected';
  // The countered offer left its waiting status without an accepted counter offer: the buyer
  // refused the counter (an UPDATE we did not get), or it lapsed. Not so when the service lists a
  // countered offer as rejected from the start.
  if (offer.offer_status === 'rejected' && counter.listedAtSend !== 'rejected')
    return refusedOrLapsed(counter, facts);
  // Listed active again after a service showed it waiting under a word of its own, or as rejected at
  // once (a rejected offer is never reopened otherwise): the buyer refused the counter and the offer
  // is the seller's to decide once more (a reading of the spec's silence on what a refused counter
  // leaves). Nothing tells where the service lists a waiting countered offer as active: there only
  // the UPDATE can.
  if (
    offer.offer_status === 'active' &&
    (isCounteredWord(counter.listedAtSend) || counter.listedAtSend === 'rejected')
  )
    return refusedOrLapsed(counter, facts);
  return counter.status;
}

// A counter the seller's reject of its offer was taken to end, at a service seen to leave such a
// counter standing: it waits on its buyer still, under the word it had, unless the cascade of
// another offer's acceptance ended it. Its buyer's refusal is known only by an UPDATE (which rewrites
// the link): the offer's `rejected` listing is the seller's.
function standingAfterSellerReject(facts: OfferRecordFacts): string | undefined {
  const { counter } = facts;
  if (counter?.endedBySeller === undefined || !facts.countersOutliveSellerReject) return undefined;
  return anotherOfferAccepted(facts) ? 'rejected' : counter.endedBySeller;
}

// Another offer on the request is accepted: its cascade ended every other offer and counter.
function anotherOfferAccepted({ offer, requestOffers }: OfferRecordFacts): boolean {
  return requestOffers.some((o) => o.offer_id !== offer.offer_id && o.offer_status === 'accepted');
}

// A counter the seller's reject was taken to end, shown still waiting on its buyer.
function standsAfterSellerReject(
  counter: CounterKnowledge | undefined,
  shownStatus: string | undefined,
): boolean {
  return counter?.endedBySeller !== undefined && !isAnsweredCounter(shownStatus);
}

// How long past a counter's own expiry a listing must still show it waiting before that is taken as
// this service's way: a service that lets counters lapse may end them on a schedule, a little late.
export const OUTLIVED_AFTER_MS = 5 * 60_000;

// A counter the listings show ended with no word of the buyer's: `expired` where its own expiry came
// before this read's answer and the last read that showed it waiting was no more than
// OUTLIVED_AFTER_MS past the expiry (a service that lets unanswered counters lapse, as
// `counter_offer_expires` suggests, ends them so, on a schedule that may run a little late: seen
// waiting seconds past its expiry, then reopened, such a counter lapsed in two soaks), else refused
// by the buyer: answered before the expiry, after
// a read that showed it waiting well past the expiry, at a service seen to keep counters waiting
// past their expiry, or listed as this service lists refusals and not as it lists lapses.
function refusedOrLapsed(
  counter: CounterKnowledge,
  {
    offer,
    readAtMs,
    answeredAtMs,
    shownAsWasAtMs,
    countersOutliveExpiry,
    refusalListings,
  }: Pick<
    OfferRecordFacts,
    'offer' | 'readAtMs' | 'answeredAtMs' | 'shownAsWasAtMs' | 'countersOutliveExpiry' | 'refusalListings'
  >,
): string {
  if (countersOutliveExpiry || !ranOutBy(counter.expiresMs, answeredAtMs ?? readAtMs)) return 'rejected';
  if (refusalListings?.has(offer.offer_status.toLowerCase())) return 'rejected';
  const lapseLatest = typeof counter.expiresMs === 'number' ? counter.expiresMs + OUTLIVED_AFTER_MS : null;
  return ranOutBy(lapseLatest, shownAsWasAtMs) ? 'rejected' : 'expired';
}

// Statuses a countered offer cannot have been waiting under: the listing's undecided word, and
// words for an offer already closed.
const NOT_A_WAITING_WORD = new Set([
  'active',
  'accepted',
  'rejected',
  'declined',
  'expired',
  ...WITHDRAWN_OFFER,
]);

// An offer status that only a countered offer waiting on its buyer has: `countered`, or another
// service's word for it (`counter_offered`; the spec shows no status beyond active, accepted and
// rejected). The ledger keeps any such word as `countered` (listedAtSendOf).
export function isCounteredWord(status: string | undefined): boolean {
  return status !== undefined && status !== '' && !NOT_A_WAITING_WORD.has(status.toLowerCase());
}

// The stage an offer record shows for an offer status and the status of the counter made on it.
export function stageFor(offerStatus: string, counterStatus: string | undefined): OfferStage {
  const status = offerStatus.toLowerCase();
  if (status === 'accepted') return 'accepted';
  if (counterStatus !== undefined && counterStatus !== '') {
    if (REFUSED_COUNTER.has(counterStatus.toLowerCase())) return 'counter_rejected';
    // Pending, or accepted: the countered record stays Countered; the buyer's new offer is Accepted.
    return 'countered';
  }
  if (isWithdrawnOffer(status)) return 'rejected';
  switch (status) {
    case 'countered':
      return 'countered';
    case 'rejected':
    case 'declined': // the seller's refusal in another service's word
      return 'rejected';
    case 'expired':
      return 'expired';
    default:
      // active, and any status we do not know: shown as it is in the status property.
      return 'incoming';
  }
}

// What an offer record shows, from the service's facts and what the ledger knows of our counter.
// Every writer of offer records (events, reconcile, decisions, cascade) goes through it.
export function offerRecordView(facts: OfferRecordFacts): OfferRecordView {
  const { offer, counter } = facts;
  const acceptedBy = acceptedCounterOffer(facts);
  const counterStatus = counterStatusOf(facts, acceptedBy);
  const counterId =
    counter?.id ??
    (acceptedBy ? namedCounterOf(acceptedBy) : undefined) ??
    // An offer the buyer made by accepting our counter names it (when the service names it).
    namedCounterOf(offer);
  // The seller's reject carried out while the counter still stands: the record shows the offer
  // turned down, and the counter status that the buyer may still answer.
  const stage = standsAfterSellerReject(counter, counterStatus)
    ? 'rejected'
    : stageFor(offer.offer_status, counterStatus);
  return {
    stage,
    offerStatus: offer.offer_status,
    ...(counterId !== undefined ? { counterId } : {}),
    ...(counterStatus !== undefined ? { counterStatus } : {}),
    // Expired too: an offer that ran out moves a record out of Incoming only (the offer clocks, which
    // read the record's stage first), never out of a stage the agent chose.
    stageOnCreateOnly: stage === 'incoming' || stage === 'expired',
  };
}

// What the ledger keeps of a counter after a view of the service's facts: a buyer's answer or a
// counter id read from the listings is kept, so later (or stale) listings never take it back.
export function learnCounter(
  known: CounterKnowledge,
  view: Pick<OfferRecordView, 'counterId' | 'counterStatus'>,
  listedNow?: string,
): CounterKnowledge {
  // A counter taken as ended by the seller's reject keeps that in the ledger while it is shown still
  // standing: only its buyer's answer replaces it. A refusal read from a `rejected` listing of a
  // counter no read showed waiting, before any counter has shown how this service lists a waiting
  // one, may be the waiting itself (a service that lists a countered offer `rejected` at once):
  // shown, not kept, so a pass after a later counter has shown the habit reads it again.
  const unsettledRefusal =
    known.listedAtSend === undefined &&
    listedNow === 'rejected' &&
    isRefusedCounter(view.counterStatus) &&
    !isAnsweredCounter(known.status);
  return {
    ...known,
    id: known.id ?? view.counterId,
    status:
      standsAfterSellerReject(known, view.counterStatus) || unsettledRefusal
        ? known.status
        : (view.counterStatus ?? known.status),
  };
}

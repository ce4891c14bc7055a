import { createHash } from 'node:crypto';
import type { Offer } from '../../cash-offer/schema';
import { outboxKey, type Link, type LinkRepository } from '../../ledger';
import { LINK } from '../common/listing-deal.properties';
import {
  OUTLIVED_AFTER_MS,
  isAnsweredCounter,
  isCounteredWord,
  type CounterKnowledge,
} from './offer-record.view';

// The ledger's link of a counter: remote id = the countered offer's id, CRM id = the service's
// counter id (or a stand-in while the service has not named it), content = what is known of it.
export interface CounterLinkContent extends CounterKnowledge {
  requestId?: number;
  // How the service listed the countered offer when the buyer's refusal was learned (`rejected`,
  // or `active` where the service puts the offer back on the market): a service that reopens
  // offers this way makes an `active` listing no proof that a counter never arrived.
  listedAfterRefusal?: string;
  // That end was read from a listing taken after the counter's own expiry, where it may have lapsed:
  // its listing tells nothing of how this service lists a refusal (refusalListingsTold).
  endedPastExpiry?: boolean;
  // A listing read well past the counter's own expiry still showed the offer waiting as it was at
  // the send (never where a lapse would look the same): this service lets no counter lapse.
  outlivedExpiry?: boolean;
  // The buyer accepted this counter after the seller had turned its offer down: this service leaves
  // a waiting counter standing through the seller's reject (countersOutliveSellerReject).
  outlivedSellerReject?: boolean;
  // The service the counter was sent to (serviceMark of its base URL): how the brokerage's earlier
  // counters were listed tells of this one only where they met the same service.
  service?: string;
}

const UNNAMED_PREFIX = 'unnamed:';

// The outbox operation that sends a counter, and its one command per offer.
export const COUNTER_OFFER_OPERATION = 'counter_offer';
export function counterCommandKey(brokerageId: string, offerId: number): string {
  return outboxKey(brokerageId, `offer:${offerId}`, COUNTER_OFFER_OPERATION);
}

// A counter whose answer carried no id still needs a unique CRM id in the ledger.
export function counterCrmId(offerId: string, counterId: string | undefined): string {
  return counterId ?? `${UNNAMED_PREFIX}${offerId}`;
}

export function encodeCounterLink(content: CounterLinkContent): string {
  return JSON.stringify({
    s: content.status,
    ...(content.requestId !== undefined ? { r: content.requestId } : {}),
    ...(content.listedAtSend !== undefined ? { l: content.listedAtSend } : {}),
    ...(content.amount !== undefined ? { a: content.amount } : {}),
    // Seconds, not ISO text: the link's content column is short. To the millisecond (a fraction):
    // rounded to the second, a counter due at :07.627 read as due at :08, and a listing read at :07.8
    // that showed it lapsed was taken for its buyer's refusal (full soak 20261258).
    ...(content.expiresMs !== undefined
      ? { e: content.expiresMs === null ? null : content.expiresMs / 1000 }
      : {}),
    ...(content.listedAfterRefusal !== undefined ? { f: content.listedAfterRefusal } : {}),
    // Milliseconds: a pass that read in the same second, after the counter, infers from its read.
    ...(content.knownSinceMs !== undefined ? { k: Math.round(content.knownSinceMs) } : {}),
    ...(content.outlivedExpiry ? { o: 1 } : {}),
    ...(content.endedBySeller !== undefined ? { x: content.endedBySeller } : {}),
    ...(content.outlivedSellerReject ? { w: 1 } : {}),
    ...(content.service !== undefined ? { u: content.service } : {}),
    ...(content.endedPastExpiry ? { z: 1 } : {}),
  });
}

// Links written before the content was JSON hold the status alone.
export function decodeCounterLink(link: Pick<Link, 'crmId' | 'contentHash'>): CounterLinkContent {
  const id = link.crmId.startsWith(UNNAMED_PREFIX) ? undefined : link.crmId;
  let parsed: unknown;
  try {
    parsed = link.contentHash.startsWith('{') ? JSON.parse(link.contentHash) : undefined;
  } catch {
    parsed = undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return { id, status: link.contentHash };
  const { s, r, l, a, e, f, k, o, x, w, u, z } = parsed as {
    s?: unknown;
    r?: unknown;
    l?: unknown;
    a?: unknown;
    e?: unknown;
    f?: unknown;
    k?: unknown;
    o?: unknown;
    x?: unknown;
    w?: unknown;
    u?: unknown;
    z?: unknown;
  };
  return {
    id,
    status: typeof s === 'string' ? s : 'pending',
    ...(typeof r === 'number' ? { requestId: r } : {}),
    ...(typeof l === 'string' ? { listedAtSend: l } : {}),
    ...(typeof a === 'number' ? { amount: a } : {}),
    ...(e === null ? { expiresMs: null } : typeof e === 'number' ? { expiresMs: Math.round(e * 1000) } : {}),
    ...(typeof f === 'string' ? { listedAfterRefusal: f } : {}),
    ...(typeof k === 'number' ? { knownSinceMs: k } : {}),
    ...(o === 1 ? { outlivedExpiry: true } : {}),
    ...(typeof x === 'string' ? { endedBySeller: x } : {}),
    ...(w === 1 ? { outlivedSellerReject: true } : {}),
    ...(typeof u === 'string' ? { service: u } : {}),
    ...(z === 1 ? { endedPastExpiry: true } : {}),
  };
}

// A short mark of the service a counter was sent to, kept on its link: the base URL's host and
// path, so a brokerage's ledger that outlives a move to another service (the demo sandbox, then the
// real one) never reads the earlier service's habit into counters sent to the new one.
export function serviceMark(baseUrl: string): string {
  let key = baseUrl.trim();
  try {
    const url = new URL(key);
    key = `${url.host.toLowerCase()}${url.pathname.replace(/\/+$/, '')}`;
  } catch {
    // A base URL the config validation let through is a URL; any other string is its own key.
  }
  return createHash('sha256').update(key).digest('hex').slice(0, 10);
}

// The counters of one request, from links found by their content (`"r":7` also matches 70).
export function countersOfRequest(
  links: readonly Link[],
  requestId: number,
): (CounterLinkContent & { offerId: string })[] {
  return links
    .map((l) => ({ ...decodeCounterLink(l), offerId: l.remoteId }))
    .filter((c) => c.requestId === requestId);
}

// What the ledger links to the other offers of a request (see OfferRecordFacts.otherCounters).
export function otherCountersOf(
  counters: readonly (CounterLinkContent & { offerId: string })[],
  offerId: string,
): { ids: Set<string>; unnamed: number } {
  const others = counters.filter((c) => c.offerId !== offerId);
  return {
    ids: new Set(others.map((c) => c.id).filter((id): id is string => id !== undefined)),
    unnamed: others.filter((c) => c.id === undefined).length,
  };
}

// How the service listed the countered offer when the counter was sent, from a listing taken some
// time after it. `countered` or `active` can only be the offer still waiting for the buyer. A later
// `rejected` may be this service's way of listing a countered offer, or the buyer's refusal (or the
// original offer rejected as the buyer accepted): the way this service listed the brokerage's earlier
// counters (`habit`) tells, when there were any (seen in the crash soak: a write-back delayed by a
// kill read `rejected` after the buyer's refusal, and the record stayed Countered). `late`: a read
// taken when a buyer may have answered already (the write-back's, after the send's own failed; or
// the send's own, come back seconds after the POST): there `active` where this service lists
// countered offers as `countered` is the offer put back to active after the buyer refused the
// counter. The send's own read, taken before a buyer can answer, stands.
// `refusedListedAs`: how this service was seen listing offers whose buyers refused our counters. A
// habit that is one of those was read only on offers listed as refused ones are (counterListingHabit:
// every read was such), so a read that is none of them is how this service lists a waiting countered
// offer and stands (readings sweep 1613 run 1: the first two counters refused within their sends
// were read `active`, as refused offers were listed, and the third's `rejected` read, its counter
// waiting, was taken for a refusal; so were every later counter's).
export function listedAtSendOf(
  listedNow: string,
  habit: string | undefined,
  late = false,
  refusedListedAs: ReadonlySet<string> = new Set(),
): string {
  if (isCounteredWord(listedNow)) return 'countered';
  if (listedNow === 'active') return late && habit === 'countered' ? habit : listedNow;
  // (`countered` is read only while a counter waits, however refused offers are listed.)
  if (
    habit !== undefined &&
    habit !== 'countered' &&
    refusedListedAs.has(habit) &&
    !refusedListedAs.has(listedNow)
  )
    return listedNow;
  return habit ?? listedNow;
}

// How a countered offer was listed when its counter was sent, weighed against the brokerage's other
// counters. A service lists countered offers one way: the way most counters read it (`countered`
// read on any settles it; counterListingHabit), so a `rejected` taken on another was the buyer's
// refusal landing before that read (a slow send, or a read after a restart), not this service's way
// of listing a countered offer.
// An `active` read is settled only by counters sent after it (`counteredSince`: one of them read
// `countered`): the service took the counter (it answered 2xx) and lists waiting counters
// `countered`, so that offer was already back on the market, its buyer having refused within the
// send. Counters sent before it do not settle it: a ledger may outlive a change of service (a demo
// sandbox, then the real one), and the service a counter met is the one that came after it.
export function settledListedAtSend(
  own: string | undefined,
  settledHabit: string | undefined,
  counteredSince = false,
): string | undefined {
  if (own === 'rejected' && settledHabit !== undefined) return settledHabit;
  if (own === 'active' && counteredSince) return 'countered';
  // Never read (the counter reached the service as its own expiry passed, so no read could show how
  // a waiting countered offer is listed): the way this service lists the others'.
  if (own === undefined) return settledHabit;
  return own;
}

// Whether the listing a counter's refusal is learnt from says how this service lists an offer whose
// buyer refused a counter (`listedAfterRefusal`, by which an `active` offer proves, or does not, that
// a counter whose answer was lost never arrived: counterProvablyAbsent). Not where the listing is
// someone else's doing: the seller's own decision on the offer reached the service (a reject lists it
// `rejected` whatever its buyer did), or an offer on the request was accepted (the cascade rejects
// every other offer). Full soak 20261255: a reject sent while its offer's counter waited was read
// back as a refusal kept `rejected`, the service was taken to keep refused offers closed, and two
// counters whose answers were lost, their buyers' refusals putting their offers back to `active`,
// were taken for never sent: one sent twice, the other given up as past its expiry.
export function refusalListingTeaches(
  offer: Pick<Offer, 'offer_id' | 'offer_status'>,
  requestOffers: readonly Pick<Offer, 'offer_id' | 'offer_status'>[],
  sellerDecisionSent: boolean,
): boolean {
  if (sellerDecisionSent) return false;
  return ![offer, ...requestOffers].some((o) => o.offer_status === 'accepted');
}

// Whether a counter whose answer was lost provably never reached the service, by how its offer is
// listed now: only an `active` offer on a service that lists a countered offer as something else
// (`countered`, or `rejected` at once), as seen on the counters it answered before. Where
// the service has been seen putting an offer back to `active` when its buyer refused a counter,
// `active` may also be our counter, refused already: then only once the UPDATE the spec says a
// refusal sends has had the brokerage's unknown-outcome window to arrive (`updateWindowPassed`; an
// UPDATE naming the offer, looked for first, proves the counter arrived). Before any refusal is
// seen the service may do either, and is taken to reopen (CounterOfferExecutor.listedAfterRefusal).
export function counterProvablyAbsent(
  listedNow: string | undefined,
  habit: string | undefined,
  reopensAfterRefusal: boolean,
  updateWindowPassed: boolean,
): boolean {
  const countersLeaveActive = habit === 'countered' || habit === 'rejected';
  return listedNow === 'active' && countersLeaveActive && (!reopensAfterRefusal || updateWindowPassed);
}

// The seller turned down an offer we countered: a counter of ours on it still waiting on its buyer
// ends with it, refused, as a service that takes the seller's word ends it. Where the service lists
// a countered offer as `rejected` from the start, nothing it lists would ever say so, and the record
// would stay Countered after the agent's reject. The word it waited under is kept (`endedBySeller`):
// a service may leave the counter standing (the spec's table names nothing else a reject does), and
// once one is seen doing so (its buyer accepting such a counter) the counter reads as waiting again
// (offerRecordView). An answer already known is kept: the buyer's acceptance stands (the view reads
// it from the buyer's new offer first).
export async function endCounterWithOffer(
  links: LinkRepository,
  brokerageId: string,
  offerId: number,
): Promise<void> {
  const link = await links.find(brokerageId, LINK.counter, String(offerId));
  if (!link) return;
  const known = decodeCounterLink(link);
  if (isAnsweredCounter(known.status)) return;
  await links.upsertLinks(brokerageId, LINK.counter, [
    {
      remoteId: link.remoteId,
      crmId: link.crmId,
      contentHash: encodeCounterLink({ ...known, status: 'rejected', endedBySeller: known.status }),
    },
  ]);
}

// Whether this brokerage's service was seen leaving a counter standing through the seller's reject of
// its offer: a buyer accepted one after it (outlivedSellerReject on its link). An UPDATE refusing
// such a counter proves nothing: a service that ends the counter may say so by an UPDATE too.
export async function countersOutliveSellerReject(
  links: LinkRepository,
  brokerageId: string,
): Promise<boolean> {
  return (await links.countByContent(brokerageId, LINK.counter, '"w":1')) > 0;
}

// Whether a listing read at `readAtMs` shows our counter outliving its own expiry: still waiting,
// the offer listed as it was at the send, under a status a lapse would change (not `active`, which a
// lapse that reopens the offer keeps), well past the expiry.
export function showsOutlivedExpiry(
  counter: CounterLinkContent,
  listedNow: string | undefined,
  readAtMs: number,
): boolean {
  if (counter.outlivedExpiry || isAnsweredCounter(counter.status)) return false;
  if (typeof counter.expiresMs !== 'number' || readAtMs - counter.expiresMs < OUTLIVED_AFTER_MS) return false;
  const atSend = counter.listedAtSend?.toLowerCase();
  return atSend !== undefined && atSend !== 'active' && listedNow?.toLowerCase() === atSend;
}

// Whether any counter of this brokerage was seen outliving its expiry (showsOutlivedExpiry).
export async function countersOutliveExpiry(links: LinkRepository, brokerageId: string): Promise<boolean> {
  return (await links.countByContent(brokerageId, LINK.counter, '"o":1')) > 0;
}

import { offerListPages, type CallOptions, type CashOfferClient } from '../../cash-offer';
import type { Offer } from '../../cash-offer/schema';
import type { Clock } from '../../common/clock';

const PAGE = 500;

// Offers and when they were read: the clock's time just before the request left (before the first
// page's request, for a read of several pages), after any wait for the rate limiter, so an answer is
// never taken for newer than it is, nor for much older. Writers order their writes by it
// (LinkRepository.classify, `stale`), and a counter's end is told a lapse when its expiry came before
// it (offer-record.view.ts): timed before the limiter's wait, which a service at half our pace makes
// seconds long, a listing the service made after a counter's expiry passed for one made before it,
// and the 200-kill soak on seed 20261224 showed a lapsed counter as its buyer's refusal.
export interface OffersRead {
  offers: Offer[];
  readAt: Date;
  // When the answer came (the last page's, for a read of several): the service made the listing no
  // later, so a counter whose expiry came before may have lapsed in it, where the read left before
  // the expiry (offer-record.view.ts). Absent: taken as readAt.
  answeredAt?: Date;
}

// Every offer on the caller's requests (optionally of one request), a page at a time. The spec
// shows no maximum `limit`: a service may cap it and answer fewer than asked on a page that is not
// the last, so a short page does not end the stream; each page starts at the last offer of the one
// before, so an offer dropped from the list during the pass makes none skipped, and one that brings
// no offer not seen already (a service that ignores `offset`) ends it (anchored-pages.ts).
export async function* streamOffers(
  client: CashOfferClient,
  query: { offer_request_id?: number } = {},
  signal?: AbortSignal,
): AsyncIterable<Offer[]> {
  for await (const page of offerPages(client, query, signal)) yield page.offers;
}

// The same, each page with its read time.
export async function* streamOfferReads(
  client: CashOfferClient,
  clock: Clock,
  query: { offer_request_id?: number } = {},
  signal?: AbortSignal,
): AsyncIterable<OffersRead> {
  for await (const { offers, readAt, answeredAt } of offerPages(client, query, signal, clock))
    yield { offers, readAt: readAt ?? clock.now(), answeredAt };
}

async function* offerPages(
  client: CashOfferClient,
  query: { offer_request_id?: number },
  signal: AbortSignal | undefined,
  clock?: Clock,
): AsyncIterable<{ offers: Offer[]; readAt: Date | undefined; answeredAt: Date | undefined }> {
  // A service that refused the filters or paging: the client reads every offer for each call, so one
  // call brings every matching offer (offers-query negotiation, cash-offer.client.ts).
  if (client.answersFromEveryOffer(query)) {
    if (signal?.aborted) return;
    const read = timedRead(clock);
    const offers = await client.listOffers({ ...query }, read.hooks);
    if (offers.length > 0) yield { offers, readAt: read.at(), answeredAt: clock?.now() };
    return;
  }
  // Each page is yielded right after its own read, so these are that read's times.
  let readAt: Date | undefined;
  let answeredAt: Date | undefined;
  const read = async (limit: number, offset: number): Promise<Offer[]> => {
    const timed = timedRead(clock);
    const offers = await client.listOffers({ ...query, limit, offset }, timed.hooks);
    readAt = timed.at();
    answeredAt = clock?.now();
    return offers;
  };
  for await (const offers of offerListPages(read, PAGE, signal, {
    state: client.offersPaging,
    relied: query.offer_request_id !== undefined,
  }))
    yield { offers, readAt, answeredAt };
}

// When one read's request left: the clock at the last attempt's send (the one answered), or, should
// the client never say, before the read was asked for. Undefined without a clock.
function timedRead(clock: Clock | undefined): { hooks: CallOptions; at: () => Date | undefined } {
  const asked = clock?.now();
  let sent: Date | undefined;
  return {
    hooks: {
      beforeSend: () => {
        sent = clock?.now();
        return Promise.resolve();
      },
    },
    at: () => sent ?? asked,
  };
}

// A service that ignores the filter lists every request's offers: only this request's count.
const ofRequest = (offers: Offer[], offerRequestId: number): Offer[] =>
  offers.filter((o) => o.offer_request_id === offerRequestId);

export async function listAllOffers(client: CashOfferClient, offerRequestId: number): Promise<Offer[]> {
  const all: Offer[] = [];
  for await (const page of streamOffers(client, { offer_request_id: offerRequestId }))
    all.push(...ofRequest(page, offerRequestId));
  return all;
}

// One reconcile pass's reads of single requests' offers (the requests whose counter may still be
// answered, whose offers span pages). A service that ignores the request filter without refusing it
// answers each such read with every offer of the account (`offersQuery: ignored`), and a pass with a
// dozen counters out read the whole book twice a dozen times under a rate limit, long enough for a
// daemon killed every few seconds to finish no pass. Such an answer, once seen, serves the pass's
// other requests: it is as fresh as the pages the pass is writing. A service that refused the
// filter is asked for the book whole once (the client, asked with the filter, would read the whole
// book for each request and keep that request's offers).
export function passRequestOffers(client: CashOfferClient): (offerRequestId: number) => Promise<Offer[]> {
  let book: Offer[] | undefined;
  return async (offerRequestId) => {
    if (book) return ofRequest(book, offerRequestId);
    const refused = client.answersFromEveryOffer({ offer_request_id: offerRequestId });
    const all: Offer[] = [];
    for await (const page of streamOffers(client, refused ? {} : { offer_request_id: offerRequestId }))
      all.push(...page);
    if (refused || all.some((o) => o.offer_request_id !== offerRequestId)) book = all;
    return ofRequest(all, offerRequestId);
  };
}

// One request's offers, read as of when the first page's request left (before it was asked for,
// when there was none).
export async function readRequestOffers(
  client: CashOfferClient,
  clock: Clock,
  offerRequestId: number,
): Promise<OffersRead> {
  const read = await readAnswered(client, clock, { offer_request_id: offerRequestId });
  return { ...read, offers: ofRequest(read.offers, offerRequestId) };
}

// Every offer the service answers a read with (of one request's offers: that request's alone, or,
// where it ignores the filter, every request's).
async function readAnswered(
  client: CashOfferClient,
  clock: Clock,
  query: { offer_request_id?: number },
): Promise<OffersRead> {
  const asked = clock.now();
  const offers: Offer[] = [];
  let readAt: Date | undefined;
  let answeredAt: Date | undefined;
  for await (const page of streamOfferReads(client, clock, query)) {
    readAt ??= page.readAt;
    answeredAt = page.answeredAt;
    offers.push(...page.offers);
  }
  return { offers, readAt: readAt ?? asked, answeredAt };
}

// Reads of single requests' offers for the service's events, where it answers each with every offer
// of the account (it ignores or refuses the request filter). An event is a claim read again from the
// service, and any read asked for after the event came says at least what the event does; so the
// last such read serves every event received before it was asked for, and a drain of a dozen
// events reads the book once, not a dozen times. (The 200-kill soak on seed 20261239, filters
// refused and pages of at most 100, had every event read the whole book, three pages each, and its
// service lane fell minutes behind the buyers.)
export class SharedBookRead {
  private last: { asked: Date; read: OffersRead } | undefined;

  constructor(
    private readonly client: CashOfferClient,
    private readonly clock: Clock,
  ) {}

  // The request's offers, from a read asked for no earlier than `notBefore` (none: a read now).
  async requestOffers(offerRequestId: number, notBefore?: Date): Promise<OffersRead> {
    const last = this.last;
    if (notBefore && last && last.asked >= notBefore)
      return { ...last.read, offers: ofRequest(last.read.offers, offerRequestId) };
    const asked = this.clock.now();
    // A service that refused the filter is read for every offer at once (the client would read them
    // all and keep this request's); one that ignores it says so by answering with other requests'.
    const refused = this.client.answersFromEveryOffer({ offer_request_id: offerRequestId });
    const read = await readAnswered(
      this.client,
      this.clock,
      refused ? {} : { offer_request_id: offerRequestId },
    );
    const wholeBook = refused || read.offers.some((o) => o.offer_request_id !== offerRequestId);
    if (wholeBook && (!this.last || this.last.asked <= asked)) this.last = { asked, read };
    return { ...read, offers: ofRequest(read.offers, offerRequestId) };
  }
}

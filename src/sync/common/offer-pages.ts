import { offerListPages, type CashOfferClient } from '../../cash-offer';
import type { Offer } from '../../cash-offer/schema';
import type { Clock } from '../../common/clock';

const PAGE = 500;

// Offers and when they were read: the clock's time just before the request (before the first page's
// request, for a read of several pages), so an answer is never taken for newer than it is. Writers
// order their writes by it (LinkRepository.classify, `stale`).
export interface OffersRead {
  offers: Offer[];
  readAt: Date;
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
  for await (const { offers, readAt } of offerPages(client, query, signal, clock))
    yield { offers, readAt: readAt ?? clock.now() };
}

async function* offerPages(
  client: CashOfferClient,
  query: { offer_request_id?: number },
  signal: AbortSignal | undefined,
  clock?: Clock,
): AsyncIterable<{ offers: Offer[]; readAt: Date | undefined }> {
  // A service that refused the filters or paging: the client reads every offer for each call, so one
  // call brings every matching offer (offers-query negotiation, cash-offer.client.ts).
  if (client.answersFromEveryOffer(query)) {
    if (signal?.aborted) return;
    const readAt = clock?.now();
    const offers = await client.listOffers({ ...query });
    if (offers.length > 0) yield { offers, readAt };
    return;
  }
  // Each page is yielded right after its own read, so this is that read's time.
  let readAt: Date | undefined;
  const read = (limit: number, offset: number): Promise<Offer[]> => {
    readAt = clock?.now();
    return client.listOffers({ ...query, limit, offset });
  };
  for await (const offers of offerListPages(read, PAGE, signal)) yield { offers, readAt };
}

export async function listAllOffers(client: CashOfferClient, offerRequestId: number): Promise<Offer[]> {
  const all: Offer[] = [];
  // A service that ignores the filter lists every request's offers: only this request's count.
  for await (const page of streamOffers(client, { offer_request_id: offerRequestId }))
    all.push(...page.filter((o) => o.offer_request_id === offerRequestId));
  return all;
}

// One request's offers, read as of before the first page was asked for.
export async function readRequestOffers(
  client: CashOfferClient,
  clock: Clock,
  offerRequestId: number,
): Promise<OffersRead> {
  const readAt = clock.now();
  return { offers: await listAllOffers(client, offerRequestId), readAt };
}

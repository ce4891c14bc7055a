import type { CashOfferClient } from '../../cash-offer';
import type { Offer } from '../../cash-offer/schema';

const PAGE = 500;

// Every offer on the caller's requests (optionally of one request), a page at a time. The spec
// shows no maximum `limit`: a service may cap it and answer fewer than asked on a page that is not
// the last, so pages are read until an empty one; one that brings no offer not seen already (a
// service that ignores `offset`) ends the stream too.
export async function* streamOffers(
  client: CashOfferClient,
  query: { offer_request_id?: number } = {},
  signal?: AbortSignal,
): AsyncIterable<Offer[]> {
  const seen = new Set<number>();
  for (let offset = 0; ;) {
    if (signal?.aborted) return;
    const page = await client.listOffers({ ...query, limit: PAGE, offset });
    const fresh = page.filter((o) => !seen.has(o.offer_id));
    if (fresh.length === 0) return;
    for (const offer of fresh) seen.add(offer.offer_id);
    yield fresh;
    offset += page.length;
  }
}

export async function listAllOffers(client: CashOfferClient, offerRequestId: number): Promise<Offer[]> {
  const all: Offer[] = [];
  // A service that ignores the filter lists every request's offers: only this request's count.
  for await (const page of streamOffers(client, { offer_request_id: offerRequestId }))
    all.push(...page.filter((o) => o.offer_request_id === offerRequestId));
  return all;
}

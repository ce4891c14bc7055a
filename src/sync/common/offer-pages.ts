import type { CashOfferClient } from '../../cash-offer';
import type { Offer } from '../../cash-offer/schema';

const PAGE = 500;

// Every offer on the caller's requests (optionally of one request), a page at a time.
export async function* streamOffers(
  client: CashOfferClient,
  query: { offer_request_id?: number } = {},
  signal?: AbortSignal,
): AsyncIterable<Offer[]> {
  for (let offset = 0; ; offset += PAGE) {
    if (signal?.aborted) return;
    const page = await client.listOffers({ ...query, limit: PAGE, offset });
    if (page.length > 0) yield page;
    if (page.length < PAGE) return;
  }
}

export async function listAllOffers(client: CashOfferClient, offerRequestId: number): Promise<Offer[]> {
  const all: Offer[] = [];
  for await (const page of streamOffers(client, { offer_request_id: offerRequestId })) all.push(...page);
  return all;
}

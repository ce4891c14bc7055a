import type { CashOfferClient } from '../../cash-offer';
import type { LinkRepository } from '../../ledger';
import { LINK } from '../common/listing-deal.properties';
import { streamOffers } from '../common/offer-pages';

export interface FoundOfferRequest {
  offer_request_id: number;
  inventory_property_id?: number;
  offer_request_status?: string;
  found_by: 'ledger link' | 'offer payload' | 'active list';
}

// Looks for the offer request a listing deal produced, by the deal id we sent as
// offer_request_external_id: the ledger (an offer event already named it), the offers on our
// requests, then the active list. A request still in review shows in none of them.
export async function findOfferRequestByExternalId(
  brokerageId: string,
  dealId: string,
  client: CashOfferClient,
  links: LinkRepository,
  signal?: AbortSignal,
): Promise<FoundOfferRequest | undefined> {
  const link = await links.findByCrmId(brokerageId, LINK.offerRequest, dealId);
  if (link) return { offer_request_id: Number(link.remoteId), found_by: 'ledger link' };
  for await (const page of streamOffers(client, {}, signal)) {
    const offer = page.find((o) => o.offer_request_external_id === dealId);
    if (offer) return { offer_request_id: offer.offer_request_id, found_by: 'offer payload' };
  }
  for await (const page of client.streamActiveOfferRequests({ pageSize: 100 })) {
    if (signal?.aborted) return undefined;
    const item = page.find((i) => i.request.offer_request_external_id === dealId);
    if (item?.request.offer_request_id !== undefined) {
      return {
        offer_request_id: item.request.offer_request_id,
        inventory_property_id: item.request.inventory_property_id,
        offer_request_status: item.request.offer_request_status,
        found_by: 'active list',
      };
    }
  }
  return undefined;
}

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

export type ExternalIdIndex = Map<string, FoundOfferRequest>;

// Our requests by the external id we sent (the deal's CRM id): from the offers on our requests, then
// the active list (which shows the external id to its owner only). A request still in review is in
// neither. One scan serves every lookup made with it.
export async function indexByExternalId(
  client: CashOfferClient,
  signal?: AbortSignal,
): Promise<ExternalIdIndex> {
  const index: ExternalIdIndex = new Map();
  for await (const page of streamOffers(client, {}, signal)) {
    for (const offer of page) {
      const key = offer.offer_request_external_id;
      if (key && !index.has(key))
        index.set(key, { offer_request_id: offer.offer_request_id, found_by: 'offer payload' });
    }
  }
  for await (const page of client.streamActiveOfferRequests({ pageSize: 100 })) {
    if (signal?.aborted) break;
    for (const { request } of page) {
      const key = request.offer_request_external_id;
      if (!key || index.has(key) || request.offer_request_id === undefined) continue;
      index.set(key, {
        offer_request_id: request.offer_request_id,
        inventory_property_id: request.inventory_property_id,
        offer_request_status: request.offer_request_status,
        found_by: 'active list',
      });
    }
  }
  return index;
}

// The offer request a listing deal produced: the ledger first (an earlier write-back or event named
// it), then the service's lists.
export async function findOfferRequestByExternalId(
  brokerageId: string,
  dealId: string,
  client: CashOfferClient,
  links: LinkRepository,
  signal?: AbortSignal,
  index?: ExternalIdIndex,
): Promise<FoundOfferRequest | undefined> {
  const link = await links.findByCrmId(brokerageId, LINK.offerRequest, dealId);
  if (link) return { offer_request_id: Number(link.remoteId), found_by: 'ledger link' };
  return (index ?? (await indexByExternalId(client, signal))).get(dealId);
}

import type { Offer } from '../../cash-offer/schema';
import type { LinkRepository } from '../../ledger';
import { LINK } from '../common/listing-deal.properties';

// The requests of these offers that a listing deal of this brokerage is linked to in the ledger,
// each looked up once.
export async function linkedRequestIds(
  links: LinkRepository,
  brokerageId: string,
  offers: readonly Offer[],
): Promise<Set<number>> {
  const linked = new Set<number>();
  for (const requestId of new Set(offers.map((o) => o.offer_request_id)))
    if (await links.find(brokerageId, LINK.offerRequest, String(requestId))) linked.add(requestId);
  return linked;
}

import type { ActiveOfferRequest } from '../../cash-offer/schema';
import { normalisedAddress } from '../common/normalised-address';

export type ListingKeySource = 'request' | 'inventory' | 'hash' | 'address';

export interface ListingKey {
  key: string;
  source: ListingKeySource;
}

// The stable identity of a marketplace listing, by what the active list carries (the declared
// request object has no id): the request id, else the inventory property id, else inventory_hash,
// else the normalised address. The prefix keeps keys of different sources from ever colliding.
export function listingKey(item: ActiveOfferRequest): ListingKey | undefined {
  const requestId = positiveInteger(item.request?.offer_request_id);
  if (requestId !== undefined) return { key: `req:${requestId}`, source: 'request' };
  const propertyId =
    positiveInteger(item.request?.inventory_property_id) ??
    positiveInteger(item.property?.inventory_property_id);
  if (propertyId !== undefined) return { key: `inv:${propertyId}`, source: 'inventory' };
  const hash = item.property?.inventory_hash;
  if (typeof hash === 'string' && hash.trim() !== '') return { key: `hash:${hash.trim()}`, source: 'hash' };
  const address = normalisedAddress(item.property ?? {});
  if (address !== undefined) return { key: `addr:${address}`, source: 'address' };
  return undefined;
}

function positiveInteger(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
}

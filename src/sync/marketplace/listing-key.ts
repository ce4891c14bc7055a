import type { ActiveOfferRequest } from '../../cash-offer/schema';

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

// Lower case, single spaces, punctuation dropped; street, unit, city, state and postal code
// (or the unparsed form) so "12 Main St., Apt 4" and "12 main st apt 4" are one listing.
export function normalisedAddress(property: Record<string, unknown>): string | undefined {
  const text = (name: string): string => {
    const value = property[name];
    return typeof value === 'string' || typeof value === 'number' ? String(value) : '';
  };
  const street =
    [text('StreetNumber'), text('StreetDirPrefix'), text('StreetName'), text('StreetSuffix')]
      .filter((p) => p !== '')
      .join(' ') || text('UnparsedAddress');
  if (street === '') return undefined;
  const parts = [
    street,
    text('UnitNumber'),
    text('PostalCity') || text('City'),
    text('StateOrProvince'),
    text('PostalCode').slice(0, 5),
  ];
  const normalised = parts
    .map((p) =>
      p
        .toLowerCase()
        .replace(/[^a-z0-9 ]+/g, ' ')
        .replace(/\s+/g, ' ')
        .trim(),
    )
    .filter((p) => p !== '')
    .join('|');
  return normalised === '' ? undefined : normalised;
}

function positiveInteger(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
}

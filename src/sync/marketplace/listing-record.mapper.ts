import type { ActiveOfferRequest } from '../../cash-offer/schema';
import type { CrmProperties } from '../../crm/crm.types';
import { UNIQUE_LISTING_KEY } from '../../crm/crm-schema';
import { assumptionsText } from './listing-assumptions';
import { photoIdentities, photoLinksText } from './listing-photos';

export interface MarketplaceRecordOptions {
  // The property that holds the record's display name (CRM_ROLE.name); unset = not written.
  nameProperty?: string;
}

export interface MarketplaceRecord {
  key: string;
  // What the record keeps for good: everything but the signed photo links. Hashed.
  durable: CrmProperties;
  // Photo identities (signed URLs without their query): hashed, so a new photo is a change.
  photoIds: string[];
  // The signed links as served: written with the record, never hashed (they change every read).
  photoLinks: string | null;
}

// One active-list item -> the marketplace deal's properties, in the CRM schema's names.
export function toMarketplaceRecord(
  item: ActiveOfferRequest,
  key: string,
  options: MarketplaceRecordOptions = {},
): MarketplaceRecord {
  const request = item.request ?? { offer_request_asking: 0 };
  const p = item.property ?? {};
  const address = streetAddress(p);
  const city = text(p.PostalCity) ?? text(p.City);
  const durable: CrmProperties = {
    [UNIQUE_LISTING_KEY]: key,
    cash_offer_listing_request_id: num(request.offer_request_id),
    cash_offer_listing_inventory_id: num(request.inventory_property_id ?? p.inventory_property_id),
    cash_offer_listing_status: text(request.offer_request_status) ?? 'active',
    cash_offer_listing_asking: num(request.offer_request_asking),
    cash_offer_listing_address: address,
    cash_offer_listing_city: city,
    cash_offer_listing_state: text(p.StateOrProvince),
    cash_offer_listing_postal_code: text(p.PostalCode),
    cash_offer_listing_beds: num(p.BedroomsTotal),
    cash_offer_listing_baths: baths(p),
    cash_offer_listing_area: num(p.LivingArea),
    cash_offer_listing_year: num(p.YearBuilt),
    cash_offer_listing_condition: text(p.PropertyCondition),
    cash_offer_listing_assumptions: assumptionsText(item.assumptions),
  };
  if (options.nameProperty) durable[options.nameProperty] = displayName(address, city, p, key);
  return { key, durable, photoIds: photoIdentities(item.media), photoLinks: photoLinksText(item.media) };
}

function streetAddress(p: Record<string, unknown>): string | null {
  const street = [p.StreetNumber, p.StreetDirPrefix, p.StreetName, p.StreetSuffix, p.StreetDirSuffix]
    .map(text)
    .filter((s): s is string => s !== null)
    .join(' ');
  const line = street || text(p.UnparsedAddress) || '';
  const unit = text(p.UnitNumber);
  const full = unit ? `${line} #${unit}` : line;
  return full === '' ? null : full;
}

function displayName(
  address: string | null,
  city: string | null,
  p: Record<string, unknown>,
  key: string,
): string {
  const place = [address, city, text(p.StateOrProvince)].filter((s) => s !== null).join(', ');
  return `Marketplace: ${place || key}`;
}

// Total bathrooms the way listings show them: full + 3/4 + 1/2 + 1/4 baths.
function baths(p: Record<string, unknown>): string | null {
  const parts: [unknown, number][] = [
    [p.BathroomsFull, 1],
    [p.BathroomsThreeQuarter, 0.75],
    [p.BathroomsHalf, 0.5],
    [p.BathroomsOneQuarter, 0.25],
  ];
  const known = parts.filter(([v]) => typeof v === 'number' && Number.isFinite(v));
  if (known.length === 0) return null;
  return String(known.reduce((sum, [v, w]) => sum + (v as number) * w, 0));
}

function text(value: unknown): string | null {
  if (typeof value === 'string') return value.trim() === '' ? null : value.trim();
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
}

function num(value: unknown): string | null {
  return typeof value === 'number' && Number.isFinite(value) ? String(value) : null;
}

import { PROPERTY_FIELDS } from '../../cash-offer/schema';
import type { FieldSpec } from '../../cash-offer/schema';
import { CASH_OFFER_GROUP } from '../crm-schema';
import type { CrmPropertySpec, CrmPropertyType, CrmSchemaSpec } from '../crm-schema.types';

// Where one of the spec's property fields (`property.StreetName` ...) comes from in HubSpot.
// `deal` is the listing deal; `seller_contact` the contact associated with it. Several
// properties are joined with a space (first + last name).
export interface HubSpotFieldSource {
  source: 'deal' | 'seller_contact';
  properties: string[];
}

export type HubSpotFieldMapping = Readonly<Record<string, HubSpotFieldSource>>;

const deal = (property: string): HubSpotFieldSource => ({ source: 'deal', properties: [property] });

// The default: HubSpot's own deal properties where one fits (amount, description), else a
// `listing_*` deal property that setup-crm creates (see listingPropertySpecs). docs/crm-hubspot.md
// shows it as a table.
export const HUBSPOT_DEFAULT_MAPPING: HubSpotFieldMapping = Object.freeze({
  StreetNumber: deal('listing_street_number'),
  StreetName: deal('listing_street_name'),
  UnitNumber: deal('listing_unit_number'),
  PostalCity: deal('listing_city'),
  City: deal('listing_city'),
  StateOrProvince: deal('listing_state'),
  PostalCode: deal('listing_postal_code'),
  CountyOrParish: deal('listing_county'),
  UnparsedAddress: deal('listing_unparsed_address'),
  MlsStatus: deal('listing_mls_status'),
  ListPrice: deal('amount'),
  BedroomsTotal: deal('listing_bedrooms'),
  BathroomsFull: deal('listing_bathrooms_full'),
  BathroomsHalf: deal('listing_bathrooms_half'),
  LivingArea: deal('listing_living_area'),
  LotSizeSquareFeet: deal('listing_lot_size_sqft'),
  YearBuilt: deal('listing_year_built'),
  PropertySubType: deal('listing_property_sub_type'),
  PropertyCondition: deal('listing_property_condition'),
  OccupantType: deal('listing_occupant_type'),
  PoolPrivateYN: deal('listing_pool'),
  GarageSpaces: deal('listing_garage_spaces'),
  ParcelNumber: deal('listing_parcel_number'),
  Notes: deal('description'),
  OwnerName: { source: 'seller_contact', properties: ['firstname', 'lastname'] },
  ListAgentFirstName: deal('listing_agent_first_name'),
  ListAgentLastName: deal('listing_agent_last_name'),
  ListAgentEmail: deal('listing_agent_email'),
  ListAgentDirectPhone: deal('listing_agent_phone'),
});

// HubSpot's built-in properties the default mapping uses; setup-crm never creates these.
const HUBSPOT_BUILT_IN: ReadonlySet<string> = new Set([
  'amount',
  'description',
  'dealname',
  'firstname',
  'lastname',
  'email',
  'phone',
]);

const PROPERTY_NAME = /^[a-z][a-z0-9_]*$/;

// A brokerage's overrides on top of the default. A plain string names a deal property (the form
// brokerage config files use); null leaves the spec field unmapped. Unknown spec field names and
// malformed HubSpot property names are refused with every problem named.
export function mergeHubSpotMapping(
  overrides: Record<string, HubSpotFieldSource | string | null>,
  base: HubSpotFieldMapping = HUBSPOT_DEFAULT_MAPPING,
): HubSpotFieldMapping {
  const problems: string[] = [];
  const merged: Record<string, HubSpotFieldSource> = { ...base };
  for (const [field, given] of Object.entries(overrides)) {
    const source = typeof given === 'string' ? deal(given) : given;
    if (!(field in PROPERTY_FIELDS)) {
      problems.push(`"${field}" is not one of the spec's property fields`);
      continue;
    }
    if (source === null) {
      delete merged[field];
      continue;
    }
    if (source.source !== 'deal' && source.source !== 'seller_contact') {
      problems.push(`${field}: source must be "deal" or "seller_contact", not "${String(source.source)}"`);
    }
    if (!Array.isArray(source.properties) || source.properties.length === 0) {
      problems.push(`${field}: name at least one HubSpot property`);
    } else {
      for (const name of source.properties.filter((p) => !PROPERTY_NAME.test(p))) {
        problems.push(`${field}: "${name}" is not a HubSpot property name (lowercase letters, digits and _)`);
      }
    }
    merged[field] = { source: source.source, properties: [...source.properties] };
  }
  if (problems.length > 0) throw new Error(`HubSpot field mapping is invalid: ${problems.join('; ')}`);
  return Object.freeze(merged);
}

function crmType(spec: FieldSpec): CrmPropertyType {
  if (spec.type === 'number' || spec.type === 'integer') return 'number';
  if (spec.type === 'boolean') return 'bool';
  if (spec.type === 'date') return 'date';
  if (spec.type === 'string' && spec.enum) return 'enumeration';
  return 'string';
}

// The custom deal properties a mapping reads, typed from the spec's field schema (enums become
// dropdowns with the spec's values), for setup-crm to create.
export function listingPropertySpecs(
  mapping: HubSpotFieldMapping = HUBSPOT_DEFAULT_MAPPING,
): CrmPropertySpec[] {
  const specs = new Map<string, CrmPropertySpec>();
  for (const [field, source] of Object.entries(mapping)) {
    if (source.source !== 'deal' || source.properties.length !== 1) continue;
    const name = source.properties[0];
    if (HUBSPOT_BUILT_IN.has(name) || specs.has(name)) continue;
    const fieldSpec = PROPERTY_FIELDS[field];
    const type = crmType(fieldSpec);
    specs.set(name, {
      kind: 'deal',
      name,
      label: `Listing: ${field}`,
      type,
      group: CASH_OFFER_GROUP,
      description: `Sent to the Cash Offer service as property.${field}`,
      ...(type === 'enumeration'
        ? { options: (fieldSpec.enum ?? []).map((v) => ({ value: v, label: v })) }
        : {}),
    });
  }
  return [...specs.values()];
}

// The cash-offer schema plus the listing properties a mapping needs.
export function withListingProperties(
  schema: CrmSchemaSpec,
  mapping: HubSpotFieldMapping = HUBSPOT_DEFAULT_MAPPING,
): CrmSchemaSpec {
  const known = new Set(schema.properties.map((p) => `${p.kind}.${p.name}`));
  const extra = listingPropertySpecs(mapping).filter((p) => !known.has(`${p.kind}.${p.name}`));
  return { ...schema, properties: [...schema.properties, ...extra] };
}

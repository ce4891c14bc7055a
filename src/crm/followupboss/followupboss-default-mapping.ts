import type { CrmFieldMapping, CrmFieldSource, CrmMappingDefaults } from '../crm-field-mapping.types';

const deal = (property: string): CrmFieldSource => ({ source: 'deal', properties: [property] });

// The default for Follow Up Boss: its own deal fields where one fits (price, description), else a
// `listing_*` deal custom field that setup-crm creates (the adapter calls it customListingXxx in
// FUB). The seller is the person on the deal. docs/crm-followupboss.md shows it as a table.
export const FOLLOWUPBOSS_DEFAULT_MAPPING: CrmFieldMapping = Object.freeze({
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
  ListPrice: deal('price'),
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
  OwnerName: { source: 'seller_contact', properties: ['firstName', 'lastName'] },
  ListAgentFirstName: deal('listing_agent_first_name'),
  ListAgentLastName: deal('listing_agent_last_name'),
  ListAgentEmail: deal('listing_agent_email'),
  ListAgentDirectPhone: deal('listing_agent_phone'),
});

// Fields every Follow Up Boss deal or person has; setup-crm never creates these.
export const FOLLOWUPBOSS_BUILT_IN: ReadonlySet<string> = new Set([
  'name',
  'price',
  'description',
  'projectedCloseDate',
  'firstName',
  'lastName',
  'stage',
  'source',
]);

export const FOLLOWUPBOSS_MAPPING_DEFAULTS: CrmMappingDefaults = {
  vendor: 'Follow Up Boss',
  mapping: FOLLOWUPBOSS_DEFAULT_MAPPING,
  builtIn: FOLLOWUPBOSS_BUILT_IN,
  // A built-in field (camelCase) or a custom one in the daemon's snake_case, which the adapter
  // turns into FUB's customXxx name.
  propertyName: /^[A-Za-z][A-Za-z0-9_]*$/,
  propertyNameRule: 'letters, digits and _',
};

import type { CrmFieldMapping, CrmFieldSource, CrmMappingDefaults } from '../crm-field-mapping.types';

const deal = (property: string): CrmFieldSource => ({ source: 'deal', properties: [property] });

// The default: HubSpot's own deal properties where one fits (amount, description), else a
// `listing_*` deal property that setup-crm creates. docs/crm-hubspot.md shows it as a table.
// Plain data: which spec fields exist and how they are typed is the brokerages layer's business.
export const HUBSPOT_DEFAULT_MAPPING: CrmFieldMapping = Object.freeze({
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

export const HUBSPOT_MAPPING_DEFAULTS: CrmMappingDefaults = {
  vendor: 'HubSpot',
  mapping: HUBSPOT_DEFAULT_MAPPING,
  builtIn: HUBSPOT_BUILT_IN,
  propertyName: /^[a-z][a-z0-9_]*$/,
  propertyNameRule: 'lowercase letters, digits and _',
};

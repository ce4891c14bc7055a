import { FieldSpec, FieldTable } from './field-spec';

export const MLS_STATUSES = [
  'Active',
  'Off-market',
  'Wholesale',
  'New Construction',
  'MLS Listed',
  'seller_considering',
] as const;
export const ASSOCIATION_FEE_FREQUENCIES = [
  'Annually',
  'Bi-Monthly',
  'Bi-Weekly',
  'Daily',
  'Monthly',
  'One Time',
  'Quarterly',
  'Seasonal',
  'Semi-Annually',
  'Semi-Monthly',
  'Weekly',
] as const;
export const OCCUPANT_TYPES = ['Owner', 'Tenant', 'Vacant'] as const;
export const PROPERTY_SUB_TYPES = [
  'Single Family Residence',
  'Apartment',
  'Condominium',
  'Cabin',
  'Manufactured Home',
  'Mobile Home',
  'Duplex',
  'Triplex',
  'Quadruplex',
  'Townhouse',
] as const;
export const SEWER_TYPES = [
  'Aerobic Septic',
  'Cesspool',
  'Engineered Septic',
  'Holding Tank',
  'Mound Septic',
  'None',
  'Other',
  'Perc Test On File',
  'Perc Test Required',
  'Private Sewer',
  'Public Sewer',
  'Septic Needed',
  'Septic Tank',
  'Shared Septic',
  'Unknown',
] as const;
export const WATER_SOURCES = [
  'Cistern',
  'None',
  'Other',
  'Private',
  'Public',
  'Shared Well',
  'Spring',
  'Well',
] as const;
export const CONSTRUCTION_MATERIALS = [
  'Brick',
  'Wood Siding',
  'Wood Framing',
  'Concrete',
  'Stucco',
  'Vinyl Siding',
  'Stone',
  'Frame',
  'Other',
  'Unknown',
] as const;
export const PROPERTY_CONDITIONS = [
  'Move-in Ready',
  'Needs Minor Aesthetic Repairs',
  'Needs Above Normal Repairs',
  'Needs Major Repairs',
  'Full Remodel',
] as const;

const str = (maxLength?: number): FieldSpec =>
  maxLength ? { type: 'string', maxLength } : { type: 'string' };
const num: FieldSpec = { type: 'number' };
const int: FieldSpec = { type: 'integer' };
const bool: FieldSpec = { type: 'boolean' };
const strArray: FieldSpec = { type: 'string-array' };

const WITH_MAX_LENGTH: Record<string, number> = {
  StreetNumber: 25,
  StreetName: 50,
  UnitNumber: 25,
  PostalCity: 50,
  StateOrProvince: 2,
  PostalCode: 10,
  AssociationFee2Frequency: 25,
  City: 50,
  CountyOrParish: 50,
  HistoryTransactional: 255,
  ListAgent: 255,
  ListAgentDirectPhone: 16,
  ListAgentEmail: 80,
  ListAgentFullName: 150,
  ListOffice: 255,
  ListOfficeName: 255,
  LivingAreaSource: 50,
  LivingAreaUnits: 25,
  OtherParking: 1024,
  OwnerName: 50,
  ParcelNumber: 50,
  PropertyType: 50,
  StandardStatus: 25,
  StreetAdditionalInfo: 50,
  StreetDirPrefix: 15,
  StreetDirSuffix: 15,
  StreetSuffix: 25,
  StreetSuffixModifier: 25,
  TaxLegalDescription: 6000,
};

const WITHOUT_MAX_LENGTH = [
  'UnparsedAddress',
  'Notes',
  'PowerProductionType',
  'inventory_hash',
  'cbsa_title',
  'ListAgentFirstName',
  'ListAgentLastName',
  'ListAgentMlsId',
  'ListAgentStateLicense',
  'ListAgentKey',
  'rehab_type',
  'OccupancyAtClosing',
];

const NUMBERS = [
  'BedroomsTotal',
  'BathroomsFull',
  'BathroomsHalf',
  'BathroomsOneQuarter',
  'BathroomsPartial',
  'BathroomsThreeQuarter',
  'LivingArea',
  'LotSizeSquareFeet',
  'Longitude',
  'Latitude',
  'YearBuilt',
  'AssociationFee',
  'AssociationFee2',
  'CarportSpaces',
  'CoveredSpaces',
  'GarageSpaces',
  'OpenParkingSpaces',
  'ParkingTotal',
  'ListPrice',
  'Stories',
  'StreetNumberNumeric',
  'TaxOtherAnnualAssessmentAmount',
  'TaxYear',
  'TotalActualRent',
  'MortgagePayoff',
  'EstimatedRenovation',
  'roof_age',
  'waterheater_age',
  'hvac_age',
];

const BOOLEANS = [
  'GarageYN',
  'AttachedGarageYN',
  'BasementYN',
  'CarportYN',
  'OpenParkingYN',
  'AssociationYN',
  'PoolPrivateYN',
  'SeniorCommunityYN',
  'SpaYN',
  'test',
];

// Fields the spec implies may be null: PropertyCondition is declared nullable, and the
// listing-agent contact fields may be "omitted or null" (notifications then go to the account).
const NULLABLE = new Set([
  'PropertyCondition',
  'ListAgentEmail',
  'ListAgentFirstName',
  'ListAgentLastName',
  'ListAgentDirectPhone',
]);

function buildPropertyFields(): FieldTable {
  const fields: Record<string, FieldSpec> = {};
  for (const [name, max] of Object.entries(WITH_MAX_LENGTH)) fields[name] = str(max);
  for (const name of WITHOUT_MAX_LENGTH) fields[name] = str();
  for (const name of NUMBERS) fields[name] = num;
  for (const name of BOOLEANS) fields[name] = bool;
  fields.inventory_password = int;
  fields.TaxAnnualAmount = int;
  fields.LeaseExpiration = { type: 'date' };
  for (const name of ['tags', 'Basement', 'Levels', 'Utilities']) fields[name] = strArray;
  fields.MlsStatus = { type: 'string', maxLength: 50, enum: MLS_STATUSES };
  fields.AssociationFeeFrequency = { type: 'string', maxLength: 25, enum: ASSOCIATION_FEE_FREQUENCIES };
  fields.OccupantType = { type: 'string', maxLength: 50, enum: OCCUPANT_TYPES };
  fields.PropertySubType = { type: 'string', maxLength: 50, enum: PROPERTY_SUB_TYPES };
  fields.Sewer = { type: 'string-array', enum: SEWER_TYPES };
  fields.WaterSource = { type: 'string-array', enum: WATER_SOURCES };
  fields.ConstructionMaterials = { type: 'string-array', enum: CONSTRUCTION_MATERIALS };
  fields.PropertyCondition = { type: 'string', enum: PROPERTY_CONDITIONS };
  for (const name of NULLABLE) fields[name] = { ...fields[name], nullable: true };
  return Object.freeze(fields);
}

export const PROPERTY_FIELDS: FieldTable = buildPropertyFields();

// The stored and returned property shape requires these six.
export const STORED_PROPERTY_REQUIRED = [
  'StreetNumber',
  'StreetName',
  'PostalCity',
  'StateOrProvince',
  'PostalCode',
  'MlsStatus',
] as const;

// On creation, UnparsedAddress + City may stand in for the separate street fields
// (docs/spec-decisions.md: "Required property fields on creation").
export const CREATE_ALWAYS_REQUIRED = ['StateOrProvince', 'PostalCode', 'MlsStatus'] as const;
export const CREATE_STREET_FIELDS = ['StreetNumber', 'StreetName', 'PostalCity'] as const;
export const CREATE_UNPARSED_FIELDS = ['UnparsedAddress', 'City'] as const;

// The only property values an offer request accepts after submission.
export const UPDATABLE_PROPERTY_FIELDS = [
  'ListAgentFirstName',
  'ListAgentLastName',
  'ListAgentEmail',
  'ListAgentDirectPhone',
] as const;

// The subset of property fields POST /offer-requests/prelim takes under `inventory`.
export const PRELIM_INVENTORY_FIELDS = [
  'StateOrProvince',
  'PostalCode',
  'BedroomsTotal',
  'BathroomsFull',
  'LivingArea',
  'LotSizeSquareFeet',
  'ParkingTotal',
  'YearBuilt',
  'ListPrice',
  'OccupantType',
  'PoolPrivateYN',
  'StandardStatus',
] as const;

import { WireField, WireObject, fieldsOf, pickFields } from './wire-field.decorator';
import {
  MLS_STATUSES,
  ASSOCIATION_FEE_FREQUENCIES,
  OCCUPANT_TYPES,
  PROPERTY_SUB_TYPES,
  SEWER_TYPES,
  WATER_SOURCES,
  CONSTRUCTION_MATERIALS,
  PROPERTY_CONDITIONS,
} from './property.enums';
import { PARENT, PATH } from './wire-messages';
import type { JsonObject } from './wire.validator';

// The property object of the spec ("Property object"), every field of its tables with its type,
// length and allowed values. Required on creation (docs/spec-decisions.md): StateOrProvince,
// PostalCode, MlsStatus, and StreetNumber + StreetName + PostalCity unless UnparsedAddress + City
// are given. Nullable: PropertyCondition and the listing-agent contact ("omitted or null").

const UNPARSED_ADDRESS = {
  test: (property: Record<string, unknown>): boolean =>
    ['UnparsedAddress', 'City'].every(
      (f) => property[f] !== undefined && property[f] !== null && property[f] !== '',
    ),
  message: `${PATH} is required (or give ${PARENT}UnparsedAddress and ${PARENT}City instead of the street fields)`,
};

@WireObject('is not a property field the service knows')
export class Property {
  @WireField({ type: 'string', maxLength: 25, requiredUnless: UNPARSED_ADDRESS })
  StreetNumber?: string;
  @WireField({ type: 'string', maxLength: 50, requiredUnless: UNPARSED_ADDRESS })
  StreetName?: string;
  @WireField({ type: 'string', maxLength: 25 })
  UnitNumber?: string;
  @WireField({ type: 'string', maxLength: 50, requiredUnless: UNPARSED_ADDRESS })
  PostalCity?: string;
  @WireField({ type: 'string', maxLength: 2, required: true })
  StateOrProvince?: string;
  @WireField({ type: 'string', maxLength: 10, required: true })
  PostalCode?: string;
  @WireField({ type: 'string', maxLength: 25 })
  AssociationFee2Frequency?: string;
  @WireField({ type: 'string', maxLength: 50 })
  City?: string;
  @WireField({ type: 'string', maxLength: 50 })
  CountyOrParish?: string;
  @WireField({ type: 'string', maxLength: 255 })
  HistoryTransactional?: string;
  @WireField({ type: 'string', maxLength: 255 })
  ListAgent?: string;
  @WireField({ type: 'string', maxLength: 16, nullable: true })
  ListAgentDirectPhone?: string | null;
  @WireField({ type: 'string', maxLength: 80, nullable: true })
  ListAgentEmail?: string | null;
  @WireField({ type: 'string', maxLength: 150 })
  ListAgentFullName?: string;
  @WireField({ type: 'string', maxLength: 255 })
  ListOffice?: string;
  @WireField({ type: 'string', maxLength: 255 })
  ListOfficeName?: string;
  @WireField({ type: 'string', maxLength: 50 })
  LivingAreaSource?: string;
  @WireField({ type: 'string', maxLength: 25 })
  LivingAreaUnits?: string;
  @WireField({ type: 'string', maxLength: 1024 })
  OtherParking?: string;
  @WireField({ type: 'string', maxLength: 50 })
  OwnerName?: string;
  @WireField({ type: 'string', maxLength: 50 })
  ParcelNumber?: string;
  @WireField({ type: 'string', maxLength: 50 })
  PropertyType?: string;
  @WireField({ type: 'string', maxLength: 25 })
  StandardStatus?: string;
  @WireField({ type: 'string', maxLength: 50 })
  StreetAdditionalInfo?: string;
  @WireField({ type: 'string', maxLength: 15 })
  StreetDirPrefix?: string;
  @WireField({ type: 'string', maxLength: 15 })
  StreetDirSuffix?: string;
  @WireField({ type: 'string', maxLength: 25 })
  StreetSuffix?: string;
  @WireField({ type: 'string', maxLength: 25 })
  StreetSuffixModifier?: string;
  @WireField({ type: 'string', maxLength: 6000 })
  TaxLegalDescription?: string;
  @WireField({ type: 'string', maxLength: 50, enum: MLS_STATUSES, required: true })
  MlsStatus?: string;
  @WireField({ type: 'string', maxLength: 25, enum: ASSOCIATION_FEE_FREQUENCIES })
  AssociationFeeFrequency?: string;
  @WireField({ type: 'string', maxLength: 50, enum: OCCUPANT_TYPES })
  OccupantType?: string;
  @WireField({ type: 'string', maxLength: 50, enum: PROPERTY_SUB_TYPES })
  PropertySubType?: string;
  @WireField({ type: 'string' })
  UnparsedAddress?: string;
  @WireField({ type: 'string' })
  Notes?: string;
  @WireField({ type: 'string' })
  PowerProductionType?: string;
  @WireField({ type: 'string' })
  inventory_hash?: string;
  @WireField({ type: 'string' })
  cbsa_title?: string;
  @WireField({ type: 'string', nullable: true })
  ListAgentFirstName?: string | null;
  @WireField({ type: 'string', nullable: true })
  ListAgentLastName?: string | null;
  @WireField({ type: 'string' })
  ListAgentMlsId?: string;
  @WireField({ type: 'string' })
  ListAgentStateLicense?: string;
  @WireField({ type: 'string' })
  ListAgentKey?: string;
  @WireField({ type: 'string' })
  rehab_type?: string;
  @WireField({ type: 'string' })
  OccupancyAtClosing?: string;
  @WireField({ type: 'number' })
  BedroomsTotal?: number;
  @WireField({ type: 'number' })
  BathroomsFull?: number;
  @WireField({ type: 'number' })
  BathroomsHalf?: number;
  @WireField({ type: 'number' })
  BathroomsOneQuarter?: number;
  @WireField({ type: 'number' })
  BathroomsPartial?: number;
  @WireField({ type: 'number' })
  BathroomsThreeQuarter?: number;
  @WireField({ type: 'number' })
  LivingArea?: number;
  @WireField({ type: 'number' })
  LotSizeSquareFeet?: number;
  @WireField({ type: 'number' })
  Longitude?: number;
  @WireField({ type: 'number' })
  Latitude?: number;
  @WireField({ type: 'number' })
  YearBuilt?: number;
  @WireField({ type: 'number' })
  AssociationFee?: number;
  @WireField({ type: 'number' })
  AssociationFee2?: number;
  @WireField({ type: 'number' })
  CarportSpaces?: number;
  @WireField({ type: 'number' })
  CoveredSpaces?: number;
  @WireField({ type: 'number' })
  GarageSpaces?: number;
  @WireField({ type: 'number' })
  OpenParkingSpaces?: number;
  @WireField({ type: 'number' })
  ParkingTotal?: number;
  @WireField({ type: 'number' })
  ListPrice?: number;
  @WireField({ type: 'number' })
  Stories?: number;
  @WireField({ type: 'number' })
  StreetNumberNumeric?: number;
  @WireField({ type: 'number' })
  TaxOtherAnnualAssessmentAmount?: number;
  @WireField({ type: 'number' })
  TaxYear?: number;
  @WireField({ type: 'number' })
  TotalActualRent?: number;
  @WireField({ type: 'number' })
  MortgagePayoff?: number;
  @WireField({ type: 'number' })
  EstimatedRenovation?: number;
  @WireField({ type: 'number' })
  roof_age?: number;
  @WireField({ type: 'number' })
  waterheater_age?: number;
  @WireField({ type: 'number' })
  hvac_age?: number;
  @WireField({ type: 'integer' })
  inventory_password?: number;
  @WireField({ type: 'integer' })
  TaxAnnualAmount?: number;
  @WireField({ type: 'boolean' })
  GarageYN?: boolean;
  @WireField({ type: 'boolean' })
  AttachedGarageYN?: boolean;
  @WireField({ type: 'boolean' })
  BasementYN?: boolean;
  @WireField({ type: 'boolean' })
  CarportYN?: boolean;
  @WireField({ type: 'boolean' })
  OpenParkingYN?: boolean;
  @WireField({ type: 'boolean' })
  AssociationYN?: boolean;
  @WireField({ type: 'boolean' })
  PoolPrivateYN?: boolean;
  @WireField({ type: 'boolean' })
  SeniorCommunityYN?: boolean;
  @WireField({ type: 'boolean' })
  SpaYN?: boolean;
  @WireField({ type: 'boolean' })
  test?: boolean;
  @WireField({ type: 'date' })
  LeaseExpiration?: string;
  @WireField({ type: 'string-array' })
  tags?: string[];
  @WireField({ type: 'string-array' })
  Basement?: string[];
  @WireField({ type: 'string-array' })
  Levels?: string[];
  @WireField({ type: 'string-array' })
  Utilities?: string[];
  @WireField({ type: 'string-array', enum: SEWER_TYPES })
  Sewer?: string[];
  @WireField({ type: 'string-array', enum: WATER_SOURCES })
  WaterSource?: string[];
  @WireField({ type: 'string-array', enum: CONSTRUCTION_MATERIALS })
  ConstructionMaterials?: string[];
  @WireField({ type: 'string', enum: PROPERTY_CONDITIONS, nullable: true })
  PropertyCondition?: string | null;
}

// Property as bodies carry it: the known fields typed, others kept as sent (mappers fill it by
// the names of a brokerage's field mapping; the validator refuses names it does not know).
export type PropertyPayload = Property & JsonObject;

// The only property values an offer request accepts after submission.
export const UPDATABLE_PROPERTY_FIELDS = [
  'ListAgentFirstName',
  'ListAgentLastName',
  'ListAgentEmail',
  'ListAgentDirectPhone',
] as const;

@WireObject(
  `cannot be changed after submission; the service updates only ${UPDATABLE_PROPERTY_FIELDS.join(', ')} and media`,
)
export class UpdatableProperty extends pickFields(Property, UPDATABLE_PROPERTY_FIELDS) {}

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

@WireObject('is not an inventory field of a prelim request the service knows')
export class PrelimInventory extends pickFields(Property, PRELIM_INVENTORY_FIELDS) {}

// The property's fields with their rules, by name (mappers convert CRM text by these types).
export const PROPERTY_FIELDS = fieldsOf(Property);

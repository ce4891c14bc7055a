// The allowed values of the property's enumerated fields, exactly as the spec lists them.

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

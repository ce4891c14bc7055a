import type { CrmMappingDefaults } from '../crm-field-mapping.types';
import { FOLLOWUPBOSS_MAPPING_DEFAULTS } from '../followupboss/followupboss-default-mapping';
import { HUBSPOT_MAPPING_DEFAULTS } from '../hubspot/hubspot-default-mapping';

// The CRM kinds a brokerage file may name; each brings its own default field mapping.
export type CrmVendorKind = 'hubspot' | 'followupboss';

const DEFAULTS: Record<CrmVendorKind, CrmMappingDefaults> = {
  hubspot: HUBSPOT_MAPPING_DEFAULTS,
  followupboss: FOLLOWUPBOSS_MAPPING_DEFAULTS,
};

export function mappingDefaultsFor(kind: CrmVendorKind): CrmMappingDefaults {
  const defaults = DEFAULTS[kind];
  if (!defaults) throw new Error(`CRM kind "${String(kind)}" has no default field mapping`);
  return defaults;
}

import { CASH_OFFER_CRM_SCHEMA, type CrmSchemaSpec } from '../crm';
import { parseMappingOverrides } from '../crm/mapping/crm-field-mapping';
import { mappingDefaultsFor, type CrmVendorKind } from '../crm/mapping/crm-mapping-defaults';
import { withListingProperties } from './listing-properties';

// Everything setup-crm installs for a brokerage: the cash-offer schema plus the listing properties
// its mapping (its CRM's default and its overrides) reads.
export function crmSchemaFor(kind: CrmVendorKind, overrides?: Record<string, string>): CrmSchemaSpec {
  const mapping = parseMappingOverrides(overrides, kind);
  return withListingProperties(CASH_OFFER_CRM_SCHEMA, mapping, mappingDefaultsFor(kind).builtIn);
}

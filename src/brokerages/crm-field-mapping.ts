import { HUBSPOT_DEFAULT_MAPPING, mergeHubSpotMapping } from '../crm/hubspot/hubspot-default-mapping';

// Where one of the spec's property fields (`property.StreetName` ...) comes from in the CRM: the
// listing deal or its seller contact; several properties are joined with a space.
export interface CrmFieldSource {
  source: 'deal' | 'seller_contact';
  properties: string[];
}

export type CrmFieldMapping = Readonly<Record<string, CrmFieldSource>>;

// Reads `crm.mapping.overrides` of a brokerage file: spec field -> CRM property. A value is
// `property` or `deal:property` (on the listing deal), `seller_contact:a,b` (on the seller contact,
// joined with a space). (An empty value, which config validation refuses today, would unmap the field.)
export function parseMappingOverrides(overrides: Record<string, string> | undefined): CrmFieldMapping {
  const parsed: Record<string, CrmFieldSource | null> = {};
  for (const [field, value] of Object.entries(overrides ?? {})) {
    const text = String(value).trim();
    if (text === '') {
      parsed[field] = null;
      continue;
    }
    const colon = text.indexOf(':');
    const source = colon < 0 ? 'deal' : text.slice(0, colon).trim();
    const names = (colon < 0 ? text : text.slice(colon + 1)).split(',').map((p) => p.trim());
    parsed[field] = {
      source: source as CrmFieldSource['source'],
      properties: names.filter((p) => p !== ''),
    };
  }
  return mergeHubSpotMapping(parsed, HUBSPOT_DEFAULT_MAPPING);
}

// Every CRM property the mapping reads from one source, for change reads and record fetches.
export function mappedProperties(mapping: CrmFieldMapping, source: CrmFieldSource['source']): string[] {
  const names = new Set<string>();
  for (const field of Object.values(mapping)) {
    if (field.source === source) for (const p of field.properties) names.add(p);
  }
  return [...names];
}

import { PROPERTY_FIELDS } from '../../cash-offer/schema';
import type { CrmFieldMapping, CrmFieldSource, CrmMappingDefaults } from '../crm-field-mapping.types';
import { mappingDefaultsFor, type CrmVendorKind } from './crm-mapping-defaults';

export type { CrmFieldMapping, CrmFieldSource } from '../crm-field-mapping.types';

const deal = (property: string): CrmFieldSource => ({ source: 'deal', properties: [property] });

// Reads `crm.mapping.overrides` of a brokerage file: spec field -> CRM property, over the default
// mapping of the brokerage's own CRM. A value is `property` or `deal:property` (on the listing
// deal), `seller_contact:a,b` (on the seller contact, joined with a space). (An empty value, which
// config validation refuses today, would unmap the field.)
export function parseMappingOverrides(
  overrides: Record<string, string> | undefined,
  kind: CrmVendorKind,
): CrmFieldMapping {
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
  return mergeFieldMapping(parsed, mappingDefaultsFor(kind));
}

// A brokerage's overrides on top of an adapter's default. A plain string names a deal property;
// null leaves the spec field unmapped. Unknown spec field names and malformed property names are
// refused with every problem named.
export function mergeFieldMapping(
  overrides: Record<string, CrmFieldSource | string | null>,
  defaults: CrmMappingDefaults,
): CrmFieldMapping {
  const problems: string[] = [];
  const merged: Record<string, CrmFieldSource> = { ...defaults.mapping };
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
      problems.push(`${field}: name at least one ${defaults.vendor} property`);
    } else {
      for (const name of source.properties.filter((p) => !defaults.propertyName.test(p))) {
        problems.push(
          `${field}: "${name}" is not a ${defaults.vendor} property name (${defaults.propertyNameRule})`,
        );
      }
    }
    merged[field] = { source: source.source, properties: [...source.properties] };
  }
  if (problems.length > 0)
    throw new Error(`${defaults.vendor} field mapping is invalid: ${problems.join('; ')}`);
  return Object.freeze(merged);
}

// Every CRM property the mapping reads from one source, for change reads and record fetches.
export function mappedProperties(mapping: CrmFieldMapping, source: CrmFieldSource['source']): string[] {
  const names = new Set<string>();
  for (const field of Object.values(mapping)) {
    if (field.source === source) for (const p of field.properties) names.add(p);
  }
  return [...names];
}

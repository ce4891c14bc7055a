import { PROPERTY_FIELDS } from '../cash-offer/schema';
import type { FieldSpec } from '../cash-offer/schema';
import { CASH_OFFER_GROUP } from '../crm/crm-schema';
import type { CrmFieldMapping } from '../crm/crm-field-mapping.types';
import type { CrmPropertySpec, CrmPropertyType, CrmSchemaSpec } from '../crm/crm-schema.types';

function crmType(spec: FieldSpec): CrmPropertyType {
  if (spec.type === 'number' || spec.type === 'integer') return 'number';
  if (spec.type === 'boolean') return 'bool';
  if (spec.type === 'date') return 'date';
  if (spec.type === 'string' && spec.enum) return 'enumeration';
  return 'string';
}

// The custom deal properties a mapping reads, typed from the spec's field schema (enums become
// dropdowns with the spec's values), for setup-crm to create. Lives here, not in an adapter: the
// spec's field schema is the Cash Offer service's, which no CRM adapter should import.
export function listingPropertySpecs(
  mapping: CrmFieldMapping,
  builtIn: ReadonlySet<string>,
): CrmPropertySpec[] {
  const specs = new Map<string, CrmPropertySpec>();
  for (const [field, source] of Object.entries(mapping)) {
    if (source.source !== 'deal' || source.properties.length !== 1) continue;
    const name = source.properties[0];
    if (builtIn.has(name) || specs.has(name)) continue;
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
  mapping: CrmFieldMapping,
  builtIn: ReadonlySet<string>,
): CrmSchemaSpec {
  const known = new Set(schema.properties.map((p) => `${p.kind}.${p.name}`));
  const extra = listingPropertySpecs(mapping, builtIn).filter((p) => !known.has(`${p.kind}.${p.name}`));
  return { ...schema, properties: [...schema.properties, ...extra] };
}

// Properties holding dates, by name, so an adapter can hand them over as ISO-8601 text.
export function datePropertiesOf(schema: CrmSchemaSpec): Map<string, 'date' | 'datetime'> {
  const dates = new Map<string, 'date' | 'datetime'>();
  for (const p of schema.properties)
    if (p.type === 'date' || p.type === 'datetime') dates.set(p.name, p.type);
  return dates;
}

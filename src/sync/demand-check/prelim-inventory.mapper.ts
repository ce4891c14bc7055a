import type { CrmFieldMapping } from '../../crm/mapping/crm-field-mapping';
import { PRELIM_INVENTORY_FIELDS, PROPERTY_FIELDS } from '../../cash-offer/schema';
import type { PrelimBody } from '../../cash-offer/schema';
import type { CrmProperties } from '../../crm/crm.types';

export type PrelimMapping = { ok: true; body: PrelimBody } | { ok: false; problems: string[] };

// The deal properties the prelim fields are mapped to (deal-sourced fields only).
export function prelimDealProperties(mapping: CrmFieldMapping): string[] {
  const names = new Set<string>();
  for (const field of PRELIM_INVENTORY_FIELDS) {
    const source = mapping[field];
    if (source?.source === 'deal') for (const p of source.properties) names.add(p);
  }
  return [...names];
}

// A listing deal -> the POST /offer-requests/prelim body, typed by the spec's field schema.
// State and postal code are required (docs/spec-decisions.md); anything else missing is left out.
export function toPrelimInventory(
  deal: { id: string; properties: CrmProperties },
  mapping: CrmFieldMapping,
): PrelimMapping {
  const inventory: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const field of PRELIM_INVENTORY_FIELDS) {
    const source = mapping[field];
    if (!source || source.source !== 'deal') continue;
    const raw = source.properties
      .map((p) => deal.properties[p]?.trim() ?? '')
      .filter((v) => v !== '')
      .join(' ');
    if (raw === '') continue;
    const type = PROPERTY_FIELDS[field]?.type;
    if (type === 'number' || type === 'integer') {
      const n = Number(raw.replace(/[$,\s]/g, ''));
      if (!Number.isFinite(n))
        problems.push(
          `deal ${deal.id}: ${field} (${source.properties.join(', ')}) is "${raw}", not a number`,
        );
      else inventory[field] = type === 'integer' ? Math.round(n) : n;
    } else if (type === 'boolean') {
      const b = ['true', 'yes', '1'].includes(raw.toLowerCase())
        ? true
        : ['false', 'no', '0'].includes(raw.toLowerCase())
          ? false
          : undefined;
      if (b === undefined) problems.push(`deal ${deal.id}: ${field} is "${raw}", not yes or no`);
      else inventory[field] = b;
    } else inventory[field] = raw;
  }
  for (const required of ['StateOrProvince', 'PostalCode'])
    if (inventory[required] === undefined)
      problems.push(`deal ${deal.id} has no ${required}; the demand check needs it`);
  return problems.length > 0 ? { ok: false, problems } : { ok: true, body: { inventory } };
}

import { badRequest, scalarText, type CustomFieldDef, type FieldType } from './fub-emulator.types';

const TYPES: FieldType[] = ['text', 'date', 'number', 'dropdown'];
const DATE = /^\d{4}-\d{2}-\d{2}$/;

// FUB names a custom field after its label: "Close Date" -> customCloseDate (crm-apis.md B2).
export function customFieldName(label: string): string {
  const words = label
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w !== '')
    .map((w) => w[0].toUpperCase() + w.slice(1));
  return `custom${words.join('')}`;
}

export function parseFieldType(value: unknown): FieldType {
  if (typeof value !== 'string' || !TYPES.includes(value as FieldType))
    throw badRequest(`type must be one of ${TYPES.join(', ')}`);
  return value as FieldType;
}

// A custom field value as FUB stores it; null clears (crm-apis.md B6). Wrong values are a 400
// naming the field, as FUB's `errorMessage` would.
export function customValue(def: CustomFieldDef, raw: unknown): unknown {
  if (raw === null || raw === undefined || raw === '') return null;
  switch (def.type) {
    case 'number': {
      const n = typeof raw === 'number' ? raw : typeof raw === 'string' ? Number(raw.trim()) : NaN;
      if (!Number.isFinite(n)) throw badRequest(`${def.name} must be a number`);
      return n;
    }
    case 'date': {
      const text = scalarText(raw);
      if (!DATE.test(text.slice(0, 10)) || Number.isNaN(Date.parse(text.slice(0, 10))))
        throw badRequest(`${def.name} must be a date (YYYY-MM-DD)`);
      return text.slice(0, 10);
    }
    case 'dropdown': {
      const text = scalarText(raw);
      if (!def.choices.includes(text))
        throw badRequest(`${def.name} must be one of: ${def.choices.join(', ')}`);
      return text;
    }
    default:
      if (typeof raw === 'object') throw badRequest(`${def.name} must be text`);
      return scalarText(raw);
  }
}

import type { CrmProperties } from '../../crm';

// CRM properties are strings; these read and write them without losing what the CRM meant.

export function crmString(value: string | null | undefined): string | undefined {
  if (value === null || value === undefined) return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

// NaN when the CRM holds text that is not a number, so the caller can name the field.
export function crmNumber(value: string | null | undefined): number | undefined {
  const text = crmString(value);
  if (text === undefined) return undefined;
  return Number(text.replace(/[$,\s]/g, ''));
}

export function crmBoolean(value: string | null | undefined): boolean | undefined {
  const text = crmString(value)?.toLowerCase();
  if (text === undefined) return undefined;
  if (['true', 'yes', '1'].includes(text)) return true;
  if (['false', 'no', '0'].includes(text)) return false;
  return undefined;
}

export function isTrue(properties: CrmProperties, name: string): boolean {
  return crmBoolean(properties[name]) === true;
}

// Values written to the CRM: numbers as plain decimals, booleans as true/false, nothing as null.
export function toCrmValue(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : null;
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

export function roundCents(value: number): number {
  return Math.round(value * 100) / 100;
}

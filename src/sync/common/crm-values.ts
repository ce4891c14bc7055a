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

// A time the service gave, written to a CRM date-time property as ISO-8601 UTC with milliseconds.
// The spec shows only "a date-time with offset": a service may write any offset, microseconds, a
// space for the `T` (PostgreSQL's text form) or epoch seconds, and a CRM may take a date-time only as
// ISO-8601 or epoch milliseconds (as docs/crm-*.md say of each). Text that is no time at all is left
// out (null), so one odd display value never blocks the write of the record that carries it.
export function toCrmDateTime(value: unknown): string | null {
  const ms = timeMs(value);
  return ms === undefined ? null : new Date(ms).toISOString();
}

// Epoch seconds below 10^11 (until the year 5138), milliseconds from there.
const EPOCH_MS_FROM = 1e11;

function timeMs(value: unknown): number | undefined {
  if (typeof value === 'number')
    return Number.isFinite(value) ? (Math.abs(value) < EPOCH_MS_FROM ? value * 1000 : value) : undefined;
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  const text = value.trim();
  if (/^-?\d+(\.\d+)?$/.test(text)) return timeMs(Number(text));
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms;
}

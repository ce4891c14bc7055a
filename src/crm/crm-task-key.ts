import { CrmError } from './crm.error';

// Where a task keeps the daemon's idempotency key: a marker in its own text (HubSpot: the last
// line of the task's notes; Follow Up Boss, whose tasks have only a name: the end of the name), so
// the key survives in the CRM with no custom field and is read back from what the CRM shows.
// Agents see it too, so it says whose it is: `[cash-offer-sync: offer:7012:lead:24h]`.
const MARKER = /\[cash-offer-sync: ([A-Za-z0-9:._/-]{1,100})\]/g;
// Keys are plain enough to survive a CRM that stores the text as HTML (no &, <, >, quotes, spaces).
const KEY = /^[A-Za-z0-9:._/-]{1,100}$/;

export function assertTaskKey(key: string): void {
  if (!KEY.test(key)) {
    throw new CrmError(
      'INVALID_RECORD',
      `task key "${key}": use 1 to 100 letters, digits and : . _ / - (it is stored in the task's text)`,
      { record: key },
    );
  }
}

// The text with the key's marker after it, `separator` between (none when the text is empty).
export function withTaskKey(text: string, key: string, separator: string): string {
  assertTaskKey(key);
  const marker = `[cash-offer-sync: ${key}]`;
  return text === '' ? marker : `${text}${separator}${marker}`;
}

// The key a task's text carries (the last marker, should an agent have copied one in) and the text
// without any marker. Text without a marker has key null: a task someone else made.
export function readTaskKey(text: string | null | undefined): { key: string | null; text: string } {
  const source = text ?? '';
  const keys = [...source.matchAll(MARKER)].map((m) => m[1]);
  return {
    key: keys.length > 0 ? keys[keys.length - 1] : null,
    text: keys.length > 0 ? source.replace(MARKER, '').trimEnd() : source,
  };
}

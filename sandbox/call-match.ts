// Which API calls a CRM emulator's injected faults take: `<METHOD> <path>` starting with the prefix
// (or with one of the prefixes) given, e.g. `POST /tasks`; null takes every call. Shared by the
// HubSpot and Follow Up Boss emulators' /__control/faults.
export type CallMatch = string | string[] | null;

export function callMatches(match: CallMatch, call: string): boolean {
  if (match === null) return true;
  return (Array.isArray(match) ? match : [match]).some((prefix) => call.startsWith(prefix));
}

// A `match` as /__control/faults takes it, or the reason it is not one.
export function readCallMatch(value: unknown): { match: CallMatch } | { error: string } {
  if (value === null || typeof value === 'string') return { match: value };
  if (Array.isArray(value) && value.every((m) => typeof m === 'string')) return { match: value };
  return { error: 'match must be a string, an array of strings, or null' };
}

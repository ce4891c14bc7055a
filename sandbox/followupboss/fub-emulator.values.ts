import { badRequest } from './fub-emulator.types';

// A request body that must be a JSON object.
export function object(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest('Invalid JSON body');
  return body as Record<string, unknown>;
}

export const id = (text: string): number => {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw badRequest(`${text} is not an id`);
  return n;
};

// Custom fields appear only with fields=allFields (or named in `fields`) on people (crm-apis.md B6);
// deals show theirs always.
export function customView(
  fields: Record<string, unknown>,
  wanted: string | null,
  always: boolean,
): Record<string, unknown> {
  const names = wanted?.split(',').map((s) => s.trim()) ?? [];
  const all = always || names.includes('allFields') || names.includes('allCustom');
  return Object.fromEntries(
    Object.entries(fields).filter(([k]) => /^custom[A-Z]/.test(k) && (all || names.includes(k))),
  );
}

export function builtIns(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([k]) => !/^custom[A-Z]/.test(k)));
}

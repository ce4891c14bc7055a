import { badRequest } from './emulator.errors';
import type { ObjectType } from './emulator.types';

// Readers of request values (path segments, query, bodies) with HubSpot's 400 for a bad one.
const TYPE_ALIASES: Record<string, ObjectType> = {
  contacts: 'contacts',
  contact: 'contacts',
  '0-1': 'contacts',
  deals: 'deals',
  deal: 'deals',
  '0-3': 'deals',
  notes: 'notes',
  note: 'notes',
  '0-46': 'notes',
  tasks: 'tasks',
  task: 'tasks',
  '0-27': 'tasks',
};

export function objectType(segment: string): ObjectType {
  const type = TYPE_ALIASES[segment.toLowerCase()];
  if (!type) throw badRequest(`Unable to infer object type from: ${segment}`);
  return type;
}

// Array query parameters arrive repeated (the SDK) or comma-joined (curl users); accept both.
export function listParam(query: URLSearchParams, name: string): string[] | undefined {
  const values = query
    .getAll(name)
    .flatMap((v) => v.split(','))
    .filter((v) => v !== '');
  return values.length > 0 ? values : undefined;
}

export function record(value: unknown, what: string): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw badRequest(`${what} must be an object`);
  return value as Record<string, unknown>;
}

export function batchInputs(body: unknown, max = 100): Record<string, unknown>[] {
  const inputs = record(body, 'request body').inputs;
  if (!Array.isArray(inputs)) throw badRequest('inputs is required and must be an array');
  if (inputs.length > max) {
    throw badRequest(`Batch input size was ${inputs.length}; the maximum is ${max} inputs per request.`);
  }
  return inputs.map((input, i) => record(input, `inputs[${i}]`));
}

// A request value as text: primitives as they are, anything else as JSON.
export function text(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

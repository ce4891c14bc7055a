import { badRequest } from '../fub-emulator.types';

// A control body must be a JSON object (the control API words its refusal its own way).
export function controlObject(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw badRequest('a JSON object is required');
  return body as Record<string, unknown>;
}

import { UPDATABLE_PROPERTY_FIELDS } from '../../cash-offer/schema';
import { contentHash } from './content-hash';

// The listing-agent fields an offer request accepts after submission, as last sent.
export function updatableFields(property: Record<string, unknown>): Record<string, unknown> {
  const picked: Record<string, unknown> = {};
  for (const field of UPDATABLE_PROPERTY_FIELDS) picked[field] = property[field] ?? null;
  return picked;
}

export function updatableHash(property: Record<string, unknown>): string {
  return contentHash(updatableFields(property));
}

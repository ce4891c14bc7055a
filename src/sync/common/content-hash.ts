import { createHash } from 'node:crypto';
import { canonicalJson } from '../../common/canonical-json';

// Hash of what a flow writes to the CRM (or sends to the service): equal hash, no write.
export function contentHash(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex').slice(0, 32);
}

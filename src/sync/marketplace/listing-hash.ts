import { createHash } from 'node:crypto';
import type { CrmProperties } from '../../crm/crm.types';
import { MARKETPLACE_MAPPING_VERSION } from './marketplace.constants';

// Hash of what a write would change: the durable properties (sorted, so key order never matters),
// the photo identities and the mapping version. Signed photo URLs stay out: they differ every read.
export function listingContentHash(durable: CrmProperties, photoIds: readonly string[]): string {
  const props = Object.keys(durable)
    .sort()
    .map((k) => [k, durable[k]]);
  return createHash('sha256')
    .update(JSON.stringify([MARKETPLACE_MAPPING_VERSION, props, photoIds]))
    .digest('base64url');
}

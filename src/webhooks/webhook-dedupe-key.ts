import { createHash } from 'node:crypto';
import { canonicalJson } from '../common/canonical-json';

// The service sends no event id, so an event is identified by its brokerage and its content.
export function webhookDedupeKey(brokerageId: string, payload: unknown): string {
  return createHash('sha256').update(brokerageId).update('\n').update(canonicalJson(payload)).digest('hex');
}

// A body that is not a JSON event has no content to canonicalise: its bytes identify it. The prefix
// keeps these keys apart from event keys.
export function malformedDedupeKey(brokerageId: string, rawBody: Buffer): string {
  return `malformed:${createHash('sha256').update(brokerageId).update('\n').update(rawBody).digest('hex')}`;
}

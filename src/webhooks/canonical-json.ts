import { createHash } from 'node:crypto';

// JSON with object keys sorted at every depth, so two deliveries of one event hash alike even
// when the sender serialises keys in another order.
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(obj)
        .sort()
        .map((key) => [key, sortKeys(obj[key])]),
    );
  }
  return value;
}

// The service sends no event id, so an event is identified by its brokerage and its content.
export function webhookDedupeKey(brokerageId: string, payload: unknown): string {
  return createHash('sha256').update(brokerageId).update('\n').update(canonicalJson(payload)).digest('hex');
}

import type { JsonObject } from './schema';
import { positiveId } from './positive-id';

// What an UPDATE callback says of a counter, wherever a plausible payload puts it: the spec says
// only that an UPDATE is sent when a buyer rejects a counter. Top-level fields first, then a
// nested `counter_offer` (or `data`) object.
export interface CounterUpdate {
  counterId?: number;
  offerId?: number;
  requestId?: number;
  status?: string;
}

function nested(payload: JsonObject): JsonObject[] {
  const inner: JsonObject[] = [];
  for (const key of ['counter_offer', 'data', 'payload']) {
    const value = payload[key];
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) inner.push(value as JsonObject);
  }
  return inner;
}

// An id as a number, or as a string of digits (the payload is not shown; a sender may write ids as text).
function idOf(value: unknown): number | undefined {
  return typeof value === 'string' && /^\d{1,15}$/.test(value)
    ? positiveId(Number(value))
    : positiveId(value);
}

function firstId(sources: JsonObject[], ...keys: string[]): number | undefined {
  for (const source of sources)
    for (const key of keys) {
      const id = idOf(source[key]);
      if (id !== undefined) return id;
    }
  return undefined;
}

export function readCounterUpdate(payload: JsonObject): CounterUpdate {
  const inner = nested(payload);
  const sources = [payload, ...inner];
  const status = sources
    .map((s) => s.counter_offer_status ?? s.status)
    .find((v): v is string => typeof v === 'string' && v !== '');
  return {
    counterId: firstId(sources, 'counter_offer_id') ?? firstId(inner, 'id'),
    offerId: firstId(sources, 'offer_id'),
    requestId: firstId(sources, 'offer_request_id'),
    ...(status !== undefined ? { status: status.toLowerCase() } : {}),
  };
}

export function describeUpdate(update: CounterUpdate): string {
  const parts = [
    update.counterId !== undefined ? `counter offer ${update.counterId}` : undefined,
    update.offerId !== undefined ? `offer ${update.offerId}` : undefined,
    update.requestId !== undefined ? `offer request ${update.requestId}` : undefined,
  ].filter(Boolean);
  return parts.length > 0 ? parts.join(', ') : 'an UPDATE naming no counter, offer or request';
}

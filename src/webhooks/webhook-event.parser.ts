import { readCounterUpdate } from '../cash-offer/counter-update.reader';
import {
  checkWire,
  EVENT_ENVELOPES,
  EVENT_PAYLOADS,
  formatViolations,
  isPlainObject,
  JsonObject,
} from '../cash-offer/schema';
import { canonicalEvent, withCanonicalEvent } from './event-name';
import { jsonNestingDepth, MAX_WEBHOOK_JSON_DEPTH } from './json-nesting';
import { requestOrderingKey } from '../ledger';

export const KNOWN_WEBHOOK_EVENTS = Object.keys(EVENT_PAYLOADS) as (keyof typeof EVENT_PAYLOADS)[];
export type KnownWebhookEvent = (typeof KNOWN_WEBHOOK_EVENTS)[number];

export type ParsedWebhook =
  | {
      ok: true;
      eventType: string;
      // Events of one offer request are applied in order of receipt.
      orderingKey: string | null;
      payload: JsonObject;
      // Stored for the operator but not applied: an event type we do not know, or one we cannot act on.
      flagged: boolean;
      flagReason?: string;
      // Fields the event's wire class does not know: kept as sent and reported, never fatal.
      unknownFields: string[];
    }
  | { ok: false; reason: string };

// The counter-rejection callback's payload is not shown in the spec; any of these ids, at the top
// or nested (readCounterUpdate), lets us act.
const UPDATE_IDS = ['offer_id', 'counter_offer_id', 'offer_request_id'] as const;

// `method`: the HTTP method the delivery came with (the spec does not say UPDATE is not one).
export function parseWebhookBody(raw: Buffer | string, method = 'POST'): ParsedWebhook {
  const text = typeof raw === 'string' ? raw : raw.toString('utf8');
  if (text.trim() === '') return { ok: false, reason: 'the body is empty; expected a JSON object' };
  // Before JSON.parse and everything recursive after it: a deep enough body would overflow the stack.
  if (jsonNestingDepth(text, MAX_WEBHOOK_JSON_DEPTH) > MAX_WEBHOOK_JSON_DEPTH)
    return {
      ok: false,
      reason: `the body nests deeper than ${MAX_WEBHOOK_JSON_DEPTH} levels of arrays and objects`,
    };
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    return { ok: false, reason: `the body is not valid JSON (${(error as Error).message})` };
  }
  if (!isPlainObject(body)) return { ok: false, reason: 'the body must be a JSON object' };
  const known = canonicalEvent(body, method);
  return classifyEvent(known ? withCanonicalEvent(body, known) : body);
}

// A known event is checked against its wire class: missing or mistyped routing fields refuse it
// (400); unknown fields are reported; other broken rules are left to its handler, which flags it.
export function classifyEvent(body: JsonObject): ParsedWebhook {
  const eventType = body.event;
  const update = eventType === 'UPDATE' ? readCounterUpdate(body) : undefined;
  const orderingKey = orderingKeyOf(update ? update.requestId : body.offer_request_id);
  const stored = { ok: true as const, orderingKey, payload: body };
  if (typeof eventType !== 'string' || eventType === '')
    return {
      ...stored,
      eventType: 'unknown',
      flagged: true,
      flagReason: 'the body has no "event" field',
      unknownFields: [],
    };
  if (!isKnownEvent(eventType))
    return {
      ...stored,
      eventType,
      flagged: true,
      flagReason: `unknown event type "${eventType}"`,
      unknownFields: [],
    };
  const unknownFields = checkWire(EVENT_PAYLOADS[eventType], body).unknown.map((v) => v.field);
  if (eventType === 'UPDATE') {
    const hasId =
      update?.counterId !== undefined || update?.offerId !== undefined || update?.requestId !== undefined;
    return hasId
      ? { ...stored, eventType, flagged: false, unknownFields }
      : {
          ...stored,
          eventType,
          flagged: true,
          flagReason: `an UPDATE callback without ${UPDATE_IDS.join(', ')}; the next offers reconcile covers it`,
          unknownFields,
        };
  }
  const { violations } = checkWire(EVENT_ENVELOPES[eventType], body, eventType);
  if (violations.length > 0)
    return { ok: false, reason: `invalid ${eventType} event: ${formatViolations(violations)}` };
  return { ...stored, eventType, flagged: false, unknownFields };
}

function isKnownEvent(eventType: string): eventType is KnownWebhookEvent {
  return Object.hasOwn(EVENT_PAYLOADS, eventType);
}

function orderingKeyOf(requestId: unknown): string | null {
  return Number.isInteger(requestId) ? requestOrderingKey(requestId as number) : null;
}

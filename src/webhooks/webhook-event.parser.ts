import {
  FieldTable,
  FieldViolation,
  formatViolations,
  isPlainObject,
  JsonObject,
  validateFields,
} from '../cash-offer/schema';
import { jsonNestingDepth, MAX_WEBHOOK_JSON_DEPTH } from './json-nesting';

export const KNOWN_WEBHOOK_EVENTS = ['offer_request_approved', 'new_offer', 'UPDATE'] as const;
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
    }
  | { ok: false; reason: string };

const id = { type: 'integer', min: 1 } as const;

// Only what applying the event depends on is required; everything else is kept as sent.
const REQUIRED_FIELDS: Record<Exclude<KnownWebhookEvent, 'UPDATE'>, FieldTable> = {
  offer_request_approved: { offer_request_id: id, offer_request_status: { type: 'string' } },
  new_offer: {
    offer_id: id,
    offer_request_id: id,
    offer_amount: { type: 'number' },
    offer_status: { type: 'string' },
  },
};

// The counter-rejection callback's payload is not shown in the spec; any of these ids lets us act.
const UPDATE_IDS = ['offer_id', 'counter_offer_id', 'offer_request_id'] as const;

export function parseWebhookBody(raw: Buffer | string): ParsedWebhook {
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
  return classifyEvent(body);
}

export function classifyEvent(body: JsonObject): ParsedWebhook {
  const eventType = body.event;
  const orderingKey = orderingKeyOf(body);
  if (typeof eventType !== 'string' || eventType === '') {
    return {
      ok: true,
      eventType: 'unknown',
      orderingKey,
      payload: body,
      flagged: true,
      flagReason: 'the body has no "event" field',
    };
  }
  if (eventType === 'UPDATE') {
    const hasId = UPDATE_IDS.some((field) => Number.isInteger(body[field]) && (body[field] as number) > 0);
    return hasId
      ? { ok: true, eventType, orderingKey, payload: body, flagged: false }
      : {
          ok: true,
          eventType,
          orderingKey,
          payload: body,
          flagged: true,
          flagReason: `an UPDATE callback without ${UPDATE_IDS.join(', ')}; the next offers reconcile covers it`,
        };
  }
  const table = REQUIRED_FIELDS[eventType as keyof typeof REQUIRED_FIELDS];
  if (!table) {
    return {
      ok: true,
      eventType,
      orderingKey,
      payload: body,
      flagged: true,
      flagReason: `unknown event type "${eventType}"`,
    };
  }
  const violations: FieldViolation[] = validateFields(eventType, pick(body, Object.keys(table)), table, {
    what: 'a field',
    required: Object.keys(table),
  });
  if (violations.length > 0)
    return { ok: false, reason: `invalid ${eventType} event: ${formatViolations(violations)}` };
  return { ok: true, eventType, orderingKey, payload: body, flagged: false };
}

function orderingKeyOf(body: JsonObject): string | null {
  const requestId = body.offer_request_id;
  return Number.isInteger(requestId) ? `offer_request:${String(requestId)}` : null;
}

function pick(obj: JsonObject, keys: string[]): JsonObject {
  return Object.fromEntries(keys.filter((k) => k in obj).map((k) => [k, obj[k]]));
}

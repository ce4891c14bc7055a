import { createHmac, timingSafeEqual } from 'node:crypto';

// HubSpot change webhooks as the daemon reads them (docs/crm-hubspot.md, "Webhooks").

export const HUBSPOT_SIGNATURE_V3_HEADER = 'x-hubspot-signature-v3';
export const HUBSPOT_TIMESTAMP_HEADER = 'x-hubspot-request-timestamp';
// HubSpot: "Reject the request if the timestamp is older than 5 minutes".
export const HUBSPOT_MAX_SIGNATURE_AGE_MS = 5 * 60_000;

export interface HubSpotSignedRequest {
  method: string;
  // The full URI HubSpot posted to (its target URL), query included.
  uri: string;
  rawBody: Buffer;
  // X-HubSpot-Request-Timestamp as sent: epoch milliseconds.
  timestamp: string;
}

// v3: base64 of HMAC-SHA256, keyed with the app's client secret, over the UTF-8 string
// method + URI + body + timestamp (HubSpot's "Validating requests" page and its v3 changelog).
export function hubSpotSignatureV3(request: HubSpotSignedRequest, clientSecret: string): string {
  return createHmac('sha256', clientSecret)
    .update(request.method.toUpperCase())
    .update(request.uri)
    .update(request.rawBody)
    .update(request.timestamp)
    .digest('base64');
}

export type HubSpotSignatureCheck = 'valid' | 'forged' | 'stale';

// 'forged': no signature, or one that is not the request's under this secret; 'stale': a true
// signature on a timestamp more than 5 minutes away from now (a captured request replayed later,
// or one dated ahead). The signature is checked first, so 'stale' is never said of a forgery.
// Compared in constant time on the decoded bytes.
export function checkHubSpotSignatureV3(
  request: HubSpotSignedRequest,
  presented: string | undefined,
  clientSecret: string,
  nowMs: number,
): HubSpotSignatureCheck {
  if (!presented || !/^[A-Za-z0-9+/]{43}=$/.test(presented)) return 'forged';
  if (!/^\d{1,16}$/.test(request.timestamp)) return 'forged';
  const expected = Buffer.from(hubSpotSignatureV3(request, clientSecret), 'base64');
  if (!timingSafeEqual(Buffer.from(presented, 'base64'), expected)) return 'forged';
  const age = nowMs - Number(request.timestamp);
  return Math.abs(age) > HUBSPOT_MAX_SIGNATURE_AGE_MS ? 'stale' : 'valid';
}

export interface HubSpotWebhookEvent {
  // HubSpot's eventId (a number in its payloads), as text: the dedupe key.
  eventId: string;
  subscriptionType: string;
  objectId: string;
  objectTypeId?: string;
  propertyName?: string;
  changeSource?: string;
}

// HubSpot sends up to 100 events a request; a little room for a sender that batches more.
export const MAX_HUBSPOT_EVENTS_PER_REQUEST = 200;
const MAX_ID_LENGTH = 64;

type Parsed = { ok: true; events: HubSpotWebhookEvent[] } | { ok: false; reason: string };

// A JSON array of `{ eventId, subscriptionId, portalId, appId, occurredAt, subscriptionType,
// attemptNumber, objectId, propertyName?, propertyValue?, changeSource? }`. Only what dedupes and
// says which kind of record changed is kept; the values are not trusted (the change reader reads
// HubSpot itself). A wrong type in any field HubSpot always sends refuses the batch, naming it.
export function parseHubSpotWebhook(rawBody: Buffer): Parsed {
  let body: unknown;
  try {
    body = JSON.parse(rawBody.toString('utf8'));
  } catch {
    return { ok: false, reason: 'the body is not JSON' };
  }
  if (!Array.isArray(body)) return { ok: false, reason: 'the body is not a JSON array of events' };
  if (body.length === 0) return { ok: false, reason: 'the batch holds no event' };
  if (body.length > MAX_HUBSPOT_EVENTS_PER_REQUEST)
    return { ok: false, reason: `the batch holds more than ${MAX_HUBSPOT_EVENTS_PER_REQUEST} events` };
  const events: HubSpotWebhookEvent[] = [];
  for (const [index, item] of body.entries()) {
    const at = `event ${index}`;
    if (typeof item !== 'object' || item === null || Array.isArray(item))
      return { ok: false, reason: `${at} is not a JSON object` };
    const event = item as Record<string, unknown>;
    const eventId = idText(event.eventId);
    if (eventId === undefined)
      return { ok: false, reason: `${at}: eventId must be a non-negative integer id` };
    const objectId = idText(event.objectId);
    if (objectId === undefined)
      return { ok: false, reason: `${at}: objectId must be a non-negative integer id` };
    const { subscriptionType, propertyName, changeSource, objectTypeId } = event;
    if (typeof subscriptionType !== 'string' || !/^[a-z_]+(\.[a-zA-Z_]+)+$/.test(subscriptionType))
      return {
        ok: false,
        reason: `${at}: subscriptionType must name a subscription such as deal.propertyChange`,
      };
    for (const key of ['portalId', 'occurredAt'] as const)
      if (!Number.isSafeInteger(event[key]) || (event[key] as number) < 0)
        return { ok: false, reason: `${at}: ${key} must be a non-negative integer` };
    if (propertyName !== undefined && (typeof propertyName !== 'string' || propertyName.length > 200))
      return { ok: false, reason: `${at}: propertyName must be a property name` };
    events.push({
      eventId,
      subscriptionType,
      objectId,
      ...(typeof objectTypeId === 'string' ? { objectTypeId } : {}),
      ...(typeof propertyName === 'string' ? { propertyName } : {}),
      ...(typeof changeSource === 'string' ? { changeSource } : {}),
    });
  }
  return { ok: true, events };
}

// HubSpot's object type ids of the records the change reader reads (deals 0-3, contacts 0-1).
const READ_OBJECT_TYPE_IDS = new Set(['0-1', '0-3']);

// Whether the event is about a record the change reader reads: a deal or a contact, in the legacy
// form (`deal.propertyChange`) or the generic one (`object.propertyChange` with `objectTypeId`).
export function isHubSpotChangeEvent(event: HubSpotWebhookEvent): boolean {
  const [object] = event.subscriptionType.split('.');
  if (object === 'deal' || object === 'contact') return true;
  return (
    object === 'object' && (event.objectTypeId === undefined || READ_OBJECT_TYPE_IDS.has(event.objectTypeId))
  );
}

function idText(value: unknown): string | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? String(value) : undefined;
  if (typeof value === 'string' && value.length <= MAX_ID_LENGTH && /^\d+$/.test(value)) return value;
  return undefined;
}

import { createHmac, timingSafeEqual } from 'node:crypto';

// Follow Up Boss webhooks as the daemon reads them (docs/crm-followupboss.md, "Webhooks").

// The events that mean a record the change reader reads may have changed. Deletes are left out:
// the change reader reads updates, and a deleted deal is found by the flows that use it.
export const FUB_CHANGE_EVENTS = ['peopleCreated', 'peopleUpdated', 'dealsCreated', 'dealsUpdated'] as const;
export type FubChangeEvent = (typeof FUB_CHANGE_EVENTS)[number];

export const FUB_SIGNATURE_HEADER = 'fub-signature';

// FUB-Signature is the hex HMAC-SHA256, keyed with the system's X-System-Key, of the base64 of the
// raw body (crm-apis.md B6). Compared in constant time; anything that is not 64 hex digits fails.
export function isValidFubSignature(
  rawBody: Buffer,
  presented: string | undefined,
  systemKey: string,
): boolean {
  if (!presented || !/^[0-9a-f]{64}$/i.test(presented)) return false;
  const expected = createHmac('sha256', systemKey).update(rawBody.toString('base64')).digest();
  return timingSafeEqual(Buffer.from(presented, 'hex'), expected);
}

export interface FubWebhookPayload {
  eventId: string;
  event: string;
  resourceIds: number[];
}

const MAX_EVENT_ID_LENGTH = 200;

// `{ eventId, eventCreated, event, resourceIds, uri }`. Only what dedupes and names the event is
// read; the ids and uri are not trusted (the change reader reads the CRM itself).
export function parseFubWebhook(
  rawBody: Buffer,
): { ok: true; payload: FubWebhookPayload } | { ok: false; reason: string } {
  let body: unknown;
  try {
    body = JSON.parse(rawBody.toString('utf8'));
  } catch {
    return { ok: false, reason: 'the body is not JSON' };
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return { ok: false, reason: 'the body is not a JSON object' };
  const { eventId, event, resourceIds } = body as Record<string, unknown>;
  if (typeof eventId !== 'string' || eventId === '' || eventId.length > MAX_EVENT_ID_LENGTH)
    return { ok: false, reason: `eventId must be a string of 1 to ${MAX_EVENT_ID_LENGTH} characters` };
  if (typeof event !== 'string' || !/^[a-zA-Z]{1,64}$/.test(event))
    return { ok: false, reason: 'event must be an event name such as dealsUpdated' };
  if (
    resourceIds !== undefined &&
    (!Array.isArray(resourceIds) || !resourceIds.every((id) => Number.isInteger(id) && (id as number) > 0))
  )
    return { ok: false, reason: 'resourceIds must be a list of positive integer ids' };
  return { ok: true, payload: { eventId, event, resourceIds: (resourceIds as number[] | undefined) ?? [] } };
}

export function isFubChangeEvent(event: string): event is FubChangeEvent {
  return (FUB_CHANGE_EVENTS as readonly string[]).includes(event);
}

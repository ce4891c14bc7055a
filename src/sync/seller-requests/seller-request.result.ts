import { isPlainObject, type JsonObject } from '../../cash-offer/schema';

// What a done create_offer_request command keeps as its result.
export interface SellerRequestResult {
  offer_request_id?: number;
  inventory_property_id?: number;
  offer_request_status?: string;
  offer_requested_at?: string;
  found_by?: string;
  // How many of the deal's photos (the first ones) the create carried; the rest follow as media
  // updates. Absent: all of them (a create without photos, or one sent before photos were counted).
  media_sent?: number;
}

// The photo count a create noted before it left (OutboxRepository.noteSending), for a create whose
// answer was lost and was found in the service's lists.
export function photosSentOf(note: unknown): Pick<SellerRequestResult, 'media_sent'> {
  const sent = isPlainObject(note) ? note.media_sent : undefined;
  return typeof sent === 'number' && Number.isInteger(sent) && sent >= 0 ? { media_sent: sent } : {};
}

// The create's answer, read defensively: the spec shows neither its code nor its body for certain
// (docs/spec-decisions.md, "createAnswer"). The record as ours sends it, the record under
// `offer_request` or `data`, only `{ offer_request_id }`, ids as numeric strings, no status: each
// field is kept when it reads as one, and a missing one is left out (the id is then looked up; a
// missing status is shown when the approval event brings it).
export function toSellerRequestResult(answer: unknown): SellerRequestResult {
  const record = recordOf(answer);
  if (!record) return {};
  const result: SellerRequestResult = {};
  const id = wholeId(record.offer_request_id);
  if (id !== undefined) result.offer_request_id = id;
  const property = wholeId(record.inventory_property_id);
  if (property !== undefined) result.inventory_property_id = property;
  const status = record.offer_request_status;
  if (typeof status === 'string' && status.trim() !== '') result.offer_request_status = status.trim();
  const at = record.offer_requested_at;
  if (typeof at === 'string' && !Number.isNaN(Date.parse(at))) result.offer_requested_at = at;
  return result;
}

function recordOf(answer: unknown): JsonObject | undefined {
  if (!isPlainObject(answer)) return undefined;
  if (answer.offer_request_id !== undefined) return answer;
  for (const key of ['offer_request', 'data', 'record'])
    if (isPlainObject(answer[key]) && answer[key].offer_request_id !== undefined) return answer[key];
  return answer;
}

function wholeId(value: unknown): number | undefined {
  const n = typeof value === 'string' && /^\d{1,15}$/.test(value.trim()) ? Number(value) : value;
  return typeof n === 'number' && Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

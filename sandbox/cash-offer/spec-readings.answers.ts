import type {
  ActiveOfferRequest,
  CounterOffer,
  CounterOfferBody,
  Offer,
  OfferRequestRecord,
  PrelimResult,
} from '../../src/cash-offer/schema';
import type { JsonObject } from '../../src/cash-offer/schema';
import { COUNTER_TERM_OF_OFFER } from '../../src/cash-offer/schema';
import { badRequest, notFound, type ApiErrorKind } from './sandbox.errors';
import type { StoredCounterOffer, StoredOfferRequest } from './sandbox.types';
import type { SpecReadingValues } from './spec-readings';

// POST /counter-offers under the readings of its answer and of the pending counter's word.
export function readCounterAnswer(
  counter: CounterOffer,
  readings: Pick<SpecReadingValues, 'counterAnswer' | 'counterPendingWord'>,
): { status: number; body: unknown } {
  const shown =
    counter.counter_offer_status === 'pending'
      ? { ...counter, counter_offer_status: readings.counterPendingWord }
      : counter;
  switch (readings.counterAnswer) {
    case 'empty-204':
      return { status: 204, body: undefined };
    case 'empty-200':
      return { status: 200, body: undefined };
    case 'id-only-200':
      return { status: 200, body: { counter_offer_id: counter.counter_offer_id } };
    default:
      return { status: 201, body: shown };
  }
}

// POST /offer-requests/prelim's answer in each plausible shape.
export function prelimAnswer(counts: PrelimResult, shape: SpecReadingValues['prelimAnswer']): unknown {
  switch (shape) {
    case 'buyers':
      return { buyers: counts.buyer_count, buy_boxes: counts.buy_box_count };
    case 'nested':
      return { data: { buyer_count: counts.buyer_count, buy_box_count: counts.buy_box_count } };
    case 'empty':
      return {};
    default:
      return counts;
  }
}

// The UPDATE callback when a buyer rejects a counter, in the reading's shape (none: not sent).
export function counterRejectedUpdate(
  c: StoredCounterOffer,
  r: StoredOfferRequest,
  now: string,
  shape: SpecReadingValues['counterRejectedCallback'],
  word: SpecReadingValues['counterRefusedWord'] = 'rejected',
): JsonObject | undefined {
  const counter = {
    counter_offer_id: c.counter_offer_id,
    offer_id: c.offer_id,
    offer_request_id: c.offer_request_id,
    offer_request_external_id: r.offer_request_external_id,
    counter_offer_status: word,
    updated_at: now,
  };
  switch (shape) {
    case 'none':
      return undefined;
    case 'nested':
      return { event: 'UPDATE', counter_offer: counter };
    case 'offer-only':
      return { event: 'UPDATE', offer_id: c.offer_id, counter_offer_status: word };
    case 'named-event':
      return { event: 'counter_offer_rejected', ...counter };
    case 'patch-no-event':
      return counter;
    case 'string-ids':
      return {
        event: 'UPDATE',
        update_type: 'counter_offer_rejected',
        ...counter,
        counter_offer_id: String(c.counter_offer_id),
        offer_id: String(c.offer_id),
        offer_request_id: String(c.offer_request_id),
      };
    default:
      return { event: 'UPDATE', update_type: 'counter_offer_rejected', ...counter };
  }
}

// POST /offer-requests under the reading of its answer (`createAnswer`).
export function createAnswer(
  record: OfferRequestRecord,
  shape: SpecReadingValues['createAnswer'],
): { status: number; body: unknown } {
  switch (shape) {
    case 'record-200':
      return { status: 200, body: record };
    case 'declared-201': {
      const {
        offer_request_id: _id,
        requested_by_agent: _agent,
        submitted_by_user: _user,
        ...declared
      } = record;
      return { status: 201, body: declared };
    }
    case 'id-only-201':
      return { status: 201, body: { offer_request_id: record.offer_request_id } };
    case 'id-only-200':
      return { status: 200, body: { offer_request_id: record.offer_request_id } };
    case 'no-status': {
      const { offer_request_status: _status, ...rest } = record;
      return { status: 201, body: rest };
    }
    case 'status-processing':
      return { status: 201, body: { ...record, offer_request_status: 'processing' } };
    case 'status-active':
      return { status: 201, body: { ...record, offer_request_status: 'active' } };
    default:
      return { status: 201, body: record };
  }
}

// The status an API error answers with under the `errorCodes` reading.
export function errorStatus(
  status: number,
  kind: ApiErrorKind | undefined,
  codes: SpecReadingValues['errorCodes'],
): number {
  if (codes === 'ours' || kind === undefined) return status;
  if (codes === 'key-400') return kind === 'key' ? 400 : status;
  if (codes === 'key-403-bare') return kind === 'key' ? 403 : status;
  if (kind === 'key') return 403;
  return codes === 'all-422' ? 422 : 400;
}

// The message an API error answers with under the `errorCodes` reading: its own, or only
// "Forbidden" for a refused key under `key-403-bare` (the body `{"message":"Forbidden"}` that Amazon
// API Gateway answers a missing API key with; its knowledge-center article "How do I troubleshoot
// HTTP 403 errors from API Gateway?" lists it, and "Invalid API Key identifier specified" for a wrong
// key, which the daemon already reads as the key's).
export function errorMessageUnder(
  message: string,
  kind: ApiErrorKind | undefined,
  codes: SpecReadingValues['errorCodes'],
): string {
  return codes === 'key-403-bare' && kind === 'key' ? 'Forbidden' : message;
}

// GET /offers under the readings of its query and of expired offers: the query the service
// honours (none, or a capped `limit`) or refuses (400 naming what it does not take), and whether an
// expired offer is listed, and as what.
export function offersQueryUnder(
  query: URLSearchParams,
  shape: SpecReadingValues['offersQuery'],
): URLSearchParams {
  if (shape === 'ignored') return new URLSearchParams();
  if (shape === 'refused' && [...query.keys()].length > 0)
    throw badRequest(`Unknown query parameter: ${[...query.keys()].join(', ')}`);
  if (shape === 'paging-only') {
    const filters = [...query.keys()].filter((name) => name !== 'limit' && name !== 'offset');
    if (filters.length > 0)
      throw badRequest(`${filters.join(', ')} is not a query parameter of GET /offers (limit, offset)`);
  }
  if (shape === 'max-100' || shape === 'paging-only') {
    const asked = query.get('limit');
    if (asked !== null && Number(asked) > 100)
      throw badRequest(`limit must be a whole number from 1 to 100; got "${asked}"`);
  }
  if (shape === 'capped-25') {
    const capped = new URLSearchParams(query);
    const asked = query.has('limit') ? Number(query.get('limit')) : 500;
    if (Number.isInteger(asked) && asked > 25) capped.set('limit', '25');
    return capped;
  }
  return query;
}

// A withdrawn offer is stored under the reading's word at the time; `dropped` hides it from lists.
export function withdrawnOfferWord(listedAs: SpecReadingValues['withdrawnOfferListedAs']): string {
  return listedAs === 'cancelled' ? 'cancelled' : 'withdrawn';
}

export function withdrawnOfferShown(
  offer: Offer,
  listedAs: SpecReadingValues['withdrawnOfferListedAs'],
): Offer | undefined {
  return listedAs === 'dropped' && ['withdrawn', 'cancelled'].includes(offer.offer_status)
    ? undefined
    : offer;
}

export function expiredOfferShown(
  offer: Offer,
  listedAs: SpecReadingValues['expiredOfferListedAs'],
): Offer | undefined {
  if (offer.offer_status !== 'expired' || listedAs === 'expired') return offer;
  if (listedAs === 'dropped') return undefined;
  return { ...offer, offer_status: listedAs };
}

// A page past the last one under the `pageAfterLast` reading: empty (ours), or an error.
export function pageAfterLast<T>(
  page: T[],
  query: URLSearchParams,
  answer: SpecReadingValues['pageAfterLast'],
): T[] {
  const offset = Number(query.get('offset') ?? 0);
  if (page.length > 0 || !(offset > 0) || answer === 'empty') return page;
  if (answer === '404') throw notFound(`no page at offset ${offset}: past the last result`);
  throw badRequest(`offset ${offset} is out of range`);
}

// The active list's `sort` under the `activeSort` reading: taken (ours), refused with 400 naming
// `sort` where the service takes fewer orders, or dropped (the default order, whatever was asked).
export function activeSortUnder(
  query: URLSearchParams,
  reading: SpecReadingValues['activeSort'],
): URLSearchParams {
  const sort = query.get('sort');
  if (reading === 'ours' || sort === null) return query;
  if (reading === 'ignored') {
    const plain = new URLSearchParams(query);
    plain.delete('sort');
    return plain;
  }
  const taken =
    reading === 'requested-at'
      ? ['offer_requested_at.desc', 'offer_requested_at.asc']
      : ['offer_requested_at.desc'];
  if (!taken.includes(sort))
    throw badRequest(`unsupported sort "${sort}"; sort may be ${taken.join(' or ')}`);
  return query;
}

// A `limit` over the active list's cap under the `activeLimitOver` reading: capped silently (ours)
// or refused with 400 naming the maximum.
export function activeQueryUnder(
  query: URLSearchParams,
  cap: number | null,
  over: SpecReadingValues['activeLimitOver'],
): URLSearchParams {
  if (cap === null) return query;
  const asked = query.has('limit') ? Number(query.get('limit')) : 10;
  if (!(Number.isInteger(asked) && asked > cap)) return query;
  if (over === 'refused') throw badRequest(`limit must be a whole number from 1 to ${cap}; got "${asked}"`);
  const capped = new URLSearchParams(query);
  capped.set('limit', String(cap));
  return capped;
}

// An active-list item under the `activeListShape` reading: ours, or the request object as the spec
// declares it (the asking price and the test flag only).
export function activeItemShown(
  item: ActiveOfferRequest,
  shape: SpecReadingValues['activeListShape'],
): ActiveOfferRequest {
  if (shape === 'ours') return item;
  if (shape === 'no-external-id') {
    const { offer_request_external_id: _external, ...request } = item.request;
    return { ...item, request };
  }
  const { offer_request_asking, test } = item.request;
  return { ...item, request: { offer_request_asking, test } };
}

// The HTTP method of the UPDATE callback under the reading (`patch-no-event`: a PATCH).
export function counterRejectedMethod(shape: SpecReadingValues['counterRejectedCallback']): 'POST' | 'PATCH' {
  return shape === 'patch-no-event' ? 'PATCH' : 'POST';
}

const COUNTER_TABLE = [
  'offer_id',
  'counter_offer_amount',
  ...Object.keys(COUNTER_TERM_OF_OFFER),
  'counter_offer_memo',
  'counter_offer_expires',
  'counter_offer_terms',
];

// What a counter stores for the terms its body left out, under `counterOmittedFields`: the
// countered offer's commission terms (ours; the other terms fall back to the offer's when the
// buyer accepts), or each column's default, false or 0 (`defaults`).
export function counterOmittedAsStored(
  body: CounterOfferBody,
  offer: Offer,
  reading: SpecReadingValues['counterOmittedFields'],
): Partial<StoredCounterOffer> {
  if (reading === 'defaults') {
    const stored: Record<string, unknown> = {};
    for (const [term, field] of Object.entries(COUNTER_TERM_OF_OFFER))
      if ((body as unknown as Record<string, unknown>)[term] === undefined)
        stored[term] = typeof offer[field] === 'boolean' ? false : 0;
    return stored;
  }
  return {
    buyer_pays_buyer_broker_commission: offer.buyer_pays_buyer_broker_commission,
    buyer_pays_listing_broker_commission: offer.buyer_pays_listing_broker_commission,
    listing_broker_commission_pct: offer.listing_broker_commission_pct,
  };
}

// `counterOmittedFields: required`: every field of the counter table (but `test` and
// `counter_offer_status`) given, else 400 naming each one missing; `all`: those two as well.
export function assertCounterComplete(
  body: CounterOfferBody,
  reading: SpecReadingValues['counterOmittedFields'],
): void {
  if (reading !== 'required' && reading !== 'all') return;
  const given = body as unknown as Record<string, unknown>;
  const table = reading === 'all' ? [...COUNTER_TABLE, 'test', 'counter_offer_status'] : COUNTER_TABLE;
  const missing = table.filter((field) => given[field] === undefined);
  if (missing.length > 0) throw badRequest(missing.map((field) => `${field} is required`).join('; '));
}

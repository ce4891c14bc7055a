import type { OffersQuery } from './call-input.guards';
import { CashOfferError } from './cash-offer.error';

// The spec shows no maximum `limit` for GET /active-offer-requests and no query at all for GET
// /offers. A service may take every parameter we send (ours), ignore them, cap `limit` silently, or
// refuse what it does not take with a 400 or 422: a page size over its own maximum, or a parameter it
// does not know. On such a refusal the client asks again in a smaller form, and keeps the form the
// service took for the brokerage. A number the service's message gives beside `limit` is only a
// first guess; every form is checked by the service's own answer.

// The page sizes tried on the way down; 10 is the spec's default `limit` of the active list.
const LIMIT_RUNGS = [100, 50, 25, 10] as const;

// A refusal of the query by the service itself (not a local check, not a refused key, not an outage).
export function refusesQuery(error: unknown): error is CashOfferError {
  return (
    error instanceof CashOfferError &&
    error.code === 'INVALID_RECORD' &&
    !error.keyRefused &&
    (error.status === 400 || error.status === 422)
  );
}

// The next page size to ask after `sent` was refused: the largest smaller number the message gives
// beside `limit` ("limit must be from 1 to 50" -> 50; a page of 1 is never a guess), else the next rung down; undefined at the
// spec's default of 10 or below, where the refusal is not the page size's.
export function smallerLimit(message: string, sent: number): number | undefined {
  if (/limit/i.test(message)) {
    const below = (message.match(/\d+/g) ?? []).map(Number).filter((n) => n > 1 && n < sent);
    if (below.length > 0) return Math.max(...below);
  }
  return LIMIT_RUNGS.find((rung) => rung < sent);
}

// The spec shows one `sort` value, the default `offer_requested_at.desc`; which others a service
// takes is not shown. A refusal that speaks of `sort` (and not of `limit`) is the order's: asked
// again in the nearest order a service is likeliest to take (ascending submission time keeps the
// property an ascending order gives a pass: requests submitted during it land after the pages read),
// then in the default order (no `sort` at all). Undefined where nothing is left to try. A message
// that calls `sort` an unknown parameter is the order's even where it lists `limit` among those taken.
export type SortForm = { sort: string | undefined } | undefined;

export function refusesSort(message: string): boolean {
  return callsUnknown(message, 'sort') || (/\bsort\b/i.test(message) && !/\blimit\b/i.test(message));
}

export function sortAfterRefusal(sent: string | undefined): SortForm {
  if (sent === undefined) return undefined;
  if (sent.endsWith('.asc') && sent !== 'offer_requested_at.asc') return { sort: 'offer_requested_at.asc' };
  return { sort: undefined };
}

// How GET /offers is asked: with the filters (offer_request_id, status) or without them (filtered
// here), with limit/offset or without (a plain GET answering every offer), and the largest page
// size the service took.
export interface OffersQueryForm {
  filters: boolean;
  paging: boolean;
  maxLimit?: number;
}

export const FULL_OFFERS_QUERY: OffersQueryForm = { filters: true, paging: true };

// What was actually sent in the refused call.
export interface SentOffersQuery {
  filters: boolean;
  limit?: number;
  offset?: number;
}

// How listOffers answers `query` under `form`: one page as asked (`page`, in the form's page size),
// every offer paged through and filtered here (`every`: the service refused the filters), or every
// offer in one plain GET, filtered and paged here (`plain`: the service refused paging).
export type OffersCall =
  | { kind: 'page'; sent: SentOffersQuery }
  | { kind: 'every'; pageSize: number; sent: SentOffersQuery }
  | { kind: 'plain'; sent: SentOffersQuery };

export function offersCall(form: OffersQueryForm, query: OffersQuery, defaultPageSize: number): OffersCall {
  if (!form.paging) return { kind: 'plain', sent: { filters: false } };
  const hasFilters = query.offer_request_id !== undefined || query.status !== undefined;
  if (hasFilters && !form.filters) {
    const pageSize = form.maxLimit ?? defaultPageSize;
    return { kind: 'every', pageSize, sent: { filters: false, limit: pageSize, offset: 0 } };
  }
  const limit = capLimit(query.limit, form.maxLimit);
  return { kind: 'page', sent: { filters: hasFilters, limit, offset: query.offset } };
}

function capLimit(limit: number | undefined, max: number | undefined): number | undefined {
  if (max === undefined) return limit;
  return limit === undefined ? max : Math.min(limit, max);
}

// The form to try after the service refused `sent` under `form`; undefined when nothing is left to
// drop (the refusal is not the query's). A message that calls `limit` or `offset` unknown drops
// paging at once, one that names a filter and not `limit` drops the filters first; otherwise a
// smaller page size is tried before the filters go, and paging goes last.
export function nextOffersForm(
  form: OffersQueryForm,
  sent: SentOffersQuery,
  message: string,
): OffersQueryForm | undefined {
  // Past the first page, a refusal that names no parameter is the end of the list or a fault
  // (pageOrEnd's to judge), never the query's: the first page was taken in this form.
  if ((sent.offset ?? 0) > 0 && !namesQuery(message)) return undefined;
  const paged = form.paging && (sent.limit !== undefined || sent.offset !== undefined);
  if (paged && callsUnknown(message, 'limit|offset')) return { filters: false, paging: false };
  const namesFilter =
    callsUnknown(message, 'offer_request_id|status') ||
    (/offer_request_id|status/i.test(message) && !/limit/i.test(message));
  if (sent.filters && form.filters && namesFilter) return { ...form, filters: false };
  if (form.paging && sent.limit !== undefined) {
    const smaller = smallerLimit(message, sent.limit);
    if (smaller !== undefined) return { ...form, maxLimit: smaller };
  }
  if (sent.filters && form.filters) return { ...form, filters: false };
  if (paged) return { filters: false, paging: false };
  return undefined;
}

// A message about the query itself: a parameter named, or parameters spoken of.
export function namesQuery(message: string): boolean {
  return /\blimit\b|offer_request_id|\bstatus\b|param/i.test(message);
}

// "Unknown query parameter: limit", "limit is not a parameter of GET /offers", "unexpected
// parameter 'offset'": the service does not take the parameter at all, whatever its value. Only a
// message whose subject is the parameter counts (not one listing it among those taken).
function callsUnknown(message: string, parameter: string): boolean {
  const name = `['"\`]?(?:${parameter})['"\`]?`;
  const before = new RegExp(
    `(?:unknown|unexpected|unsupported|unrecognized|unrecognised|invalid)(?: query)? param(?:eter)?s?:?\\s*${name}`,
    'i',
  );
  const after = new RegExp(
    `${name} (?:is not|isn't) (?:a |an )?(?:known |valid |supported |allowed )?(?:query )?param|${name} (?:is )?not (?:allowed|supported)`,
    'i',
  );
  return before.test(message) || after.test(message);
}

// A page past the last may be answered with an error instead of an empty page (how the last page is
// known is not shown): a 404 or 416 past the first page, or a 400/422 right after a short page, each
// asked twice (a passing fault is not taken for the end). A 400/422 after a full page is an error
// on its own (the spec's 400 is also "an unexpected error"): see pageOrEnd.
export function answersPastLastPage(error: unknown, afterShortPage: boolean): boolean {
  if (!(error instanceof CashOfferError) || error.keyRefused) return false;
  if (error.status === 404 || error.status === 416) return true;
  return afterShortPage && refusesQuery(error);
}

// Where a page is read: `limit` items at `offset`, after a page shorter than asked or not.
export interface PageAt {
  limit: number;
  offset: number;
  afterShortPage: boolean;
}

// One page (`read(at.limit, at.offset)`), or an empty page where the service says, twice, that there
// is none there. After a full page a 400/422 is the end only when the item just before `offset` still
// reads (`read(1, offset - 1)`): a list whose length is a multiple of a capped page size ends on a
// full page, and a service that answers 400 past the last page would otherwise make it unreadable.
// Where that item is gone too but the list's first place answers (`read(1, 0)`, with an item or
// none), the list shrank under the pass (offers dropped as they ran out while the pages before were
// written): the page is past its end, as an empty page would say, and the caller reads back until a
// page joins (anchoredPages). Before, such a pass failed, and on a book losing offers faster than a
// pass wrote its pages no pass would finish (full soak 20261265: "offset 160 is out of range").
export async function pageOrEnd<T>(
  read: (limit: number, offset: number) => Promise<T[]>,
  at: PageAt,
): Promise<T[]> {
  const { limit, offset, afterShortPage } = at;
  const mayBeTheEnd = (error: unknown): boolean =>
    answersPastLastPage(error, afterShortPage) || refusesQuery(error);
  try {
    return await read(limit, offset);
  } catch (error) {
    if (offset === 0 || !mayBeTheEnd(error)) throw error;
  }
  try {
    return await read(limit, offset);
  } catch (again) {
    if (answersPastLastPage(again, afterShortPage)) return [];
    if (!mayBeTheEnd(again)) throw again;
    if (await itemReads(() => read(1, offset - 1))) return [];
    if (offset > 1 && (await answers(() => read(1, 0)))) return [];
    throw again;
  }
}

async function itemReads(readOne: () => Promise<unknown[]>): Promise<boolean> {
  try {
    return (await readOne()).length > 0;
  } catch {
    return false;
  }
}

async function answers(readOne: () => Promise<unknown[]>): Promise<boolean> {
  try {
    await readOne();
    return true;
  } catch {
    return false;
  }
}

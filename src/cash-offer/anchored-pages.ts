import { pageOrEnd } from './list-query.negotiation';
import type { ActiveOfferRequest, Offer } from './schema';

// How a list read by `limit`/`offset` is paged (GET /active-offer-requests, GET /offers).
export interface AnchoredPaging<T> {
  read(limit: number, offset: number): Promise<T[]>;
  // The page size to ask for now (a service may have refused a larger one meanwhile).
  limit(): number;
  // What tells one item from another across reads.
  keyOf(item: T): string;
  // What a read that brings nothing new past what was read means: the service ignores `offset` (or
  // the list was rewritten under the pass). `end`: every item there is has been read (a service that
  // answers every item on every page); `fail`: the pass cannot know it saw everything.
  whenNothingNew: 'end' | 'fail';
  fail(message: string): Error;
  signal?: AbortSignal;
  // What passes over this service's list have learned, kept by the caller from one pass to the next,
  // and whether this pass may rely on it. A pass that does not (a complete reconcile) checks it: a
  // page past the first that brings items unlearns it, so a service that starts paging (upgraded
  // under a running daemon) cuts the reads that rely on it short for one pass at most.
  memory?: PagingMemory;
  reliesOnMemory?: boolean;
}

// `firstPageRepeats`: a pass was answered its first page again where it asked further on, twice (the
// overlapping read, then the one past it): the service ignores `offset`, or reads it in whole pages.
// Either way a first page shorter than asked holds every item there is (one that ignores `offset`
// has no more to give, and a list read in whole pages has no second page below `limit` items), so
// later passes stop there. A GET /offers written from the spec alone, which shows no query
// parameters, is likeliest to take none, and each read of it was three reads of the whole book.
export interface PagingMemory {
  firstPageRepeats: boolean;
}

// Reads that stepped back in one pass before it gives up on a list that changes under every read.
export const MAX_STEP_BACKS = 64;

// Every item of a list read by offset, each yielded once, none skipped by the list changing during
// the pass. Offset paging skips an item whenever one before the offset leaves the list between two
// reads (the rest move up one place, past the offset); the service's list does change under a pass
// (requests expire or go under contract, offers are dropped). So each page is asked from the last
// item of the page before (one item of overlap): a page that starts with an item already read is
// joined to what was read, and one that does not (the list moved up, or the page is past a shorter
// list's end) is asked again from further back (1, 2, 4 ... items) until it is. A list whose pages
// are a single item (a service that caps `limit` at 1) is read without overlap, as plain paging.
// The end is the page that brings nothing past the last item read: that item alone, or nothing. Only
// an empty page or that one ends the list, never a short page (a service may cap `limit`).
export async function* anchoredPages<T>(paging: AnchoredPaging<T>): AsyncIterable<T[]> {
  // Items read on pages joined to the first (so nothing listed before them was missed), each given once.
  const joined = new Set<string>();
  let offset = 0;
  let forward = 0; // where the page after the last joined one is asked
  let overlapping = false; // whether that page repeats the last joined page's last item
  let previousKeys: string | undefined;
  let lastKey: string | undefined; // the last item of the last joined page
  let fullest = 0; // the longest page the service gave: a shorter one was not cut by its cap
  let stepBack = 0;
  let stepBacks = 0;
  let afterShortPage = false;
  let plain = false; // read without overlap: the service takes offsets in whole pages only
  let firstKeys: string | undefined;
  for (;;) {
    if (paging.signal?.aborted) return;
    const limit = paging.limit();
    const page: T[] = await pageOrEnd((size, at) => paging.read(size, at), { limit, offset, afterShortPage });
    const keys = page.map((item) => paging.keyOf(item));
    if (offset === 0) {
      firstKeys = keys.join('\n');
      if (paging.reliesOnMemory && paging.memory?.firstPageRepeats && page.length < limit) {
        if (page.length > 0) yield page;
        return;
      }
    }
    const isForward = offset === forward;
    const joins = offset === 0 || (page.length > 0 && joined.has(keys[0])) || (isForward && !overlapping);
    if (!joins) {
      // The list moved up under the pass, or this offset is past its end now: these items are read
      // again from a page that joins.
      if (++stepBacks > MAX_STEP_BACKS)
        throw paging.fail(
          `the list changed under the pass: ${MAX_STEP_BACKS} pages did not start where the page before ended`,
        );
      stepBack = stepBack === 0 ? 1 : stepBack * 2;
      offset = Math.max(0, forward - stepBack);
      afterShortPage = false;
      continue;
    }
    stepBack = 0;
    if (page.length === 0) return;
    const fresh: T[] = [];
    page.forEach((item, i) => {
      if (!joined.has(keys[i])) fresh.push(item);
      joined.add(keys[i]);
    });
    if (fresh.length > 0 && offset > 0 && paging.memory) paging.memory.firstPageRepeats = false;
    if (fresh.length > 0) yield fresh;
    fullest = Math.max(fullest, page.length);
    if (isForward && offset > 0 && fresh.length === 0) {
      // The page ends with the last item read, and is either that item alone where it was asked
      // from (overlapping) or shorter than the service's pages: the list ends there. (Items added
      // ahead of it meanwhile, as on a newest-first list, moved it down the page.) Read as plain
      // paging too: a short list that gains an item at its head gives the page before again, as a
      // service taking offset in whole pages does (readings sweep 1466 failed such a pass).
      const endsAtLast = keys[keys.length - 1] === lastKey;
      if (endsAtLast && ((overlapping && page.length === 1) || page.length < fullest)) return;
      const repeats = keys.join('\n') === previousKeys;
      // The short last page again (a service that answers an offset past its end with its last
      // page, or reads offset in whole pages): nothing follows it.
      if (repeats && page.length < fullest) return;
      if (repeats && !plain) {
        // Asked one item back, the service gave the same page: it may read `offset` in whole pages
        // (page = offset / limit). Read on without overlap, as plain paging, from the item after it.
        plain = true;
        overlapping = false;
        forward = offset = offset + 1;
        continue;
      }
      if (repeats && plain && page.length > 1 && keys.join('\n') === firstKeys && paging.memory)
        paging.memory.firstPageRepeats = true;
      if (repeats || !overlapping || ++stepBacks > MAX_STEP_BACKS) {
        if (paging.whenNothingNew === 'end') return;
        throw paging.fail(
          repeats
            ? `the page at offset ${offset} repeats the previous one; the service seems to ignore offset`
            : `the page at offset ${offset} brings nothing past the items already read (the list moved under the pass, or the service ignores offset)`,
        );
      }
    }
    overlapping = !plain && page.length > 1;
    forward = offset + (overlapping ? page.length - 1 : page.length);
    // Short against the service's own longest page, not against `limit`: a page cut by a cap the
    // service never showed is short against what was asked too, and is no sign of the end.
    afterShortPage = page.length < fullest;
    previousKeys = keys.join('\n');
    lastKey = keys[keys.length - 1];
    offset = forward;
  }
}

// Every offer a GET /offers read by offset lists, each once, `pageSize` a page. A page that brings
// nothing new ends it: a service that ignores `offset` answers every offer on each page.
export function offerListPages(
  read: (limit: number, offset: number) => Promise<Offer[]>,
  pageSize: number,
  signal?: AbortSignal,
  memory?: { state: PagingMemory; relied: boolean },
): AsyncIterable<Offer[]> {
  return anchoredPages<Offer>({
    read,
    limit: () => pageSize,
    keyOf: (offer) => String(offer.offer_id),
    whenNothingNew: 'end',
    fail: (message) => new Error(`GET /offers: ${message}`),
    signal,
    memory: memory?.state,
    reliesOnMemory: memory?.relied,
  });
}

// What tells one item of the active list from another: its request id, or where the list shows
// only the declared request object (asking price and test), the whole item but its signed photo
// URLs, which differ on every read.
export function activeItemKey(item: ActiveOfferRequest): string {
  const id = item.request?.offer_request_id;
  if (id !== undefined) return `request ${id}`;
  const { media: _signed, ...rest } = item;
  return JSON.stringify(rest);
}

import { badRequest, scalarText, type StoredRecord } from './fub-emulator.types';

export const MAX_LIMIT = 100;
const DEFAULT_LIMIT = 10;
// FUB requires `next` for deep pages (crm-apis.md B4) without saying from where; the emulator
// draws the line at offset 2000.
export const MAX_OFFSET = 2000;

interface Cursor {
  q: Record<string, string>;
  after: [string | number, number];
}

type Sort = { key: 'id' | 'created' | 'updated' | 'name'; desc: boolean };

export interface ListPage {
  items: StoredRecord[];
  // The query the page answers (from the `next` cursor when one was followed).
  q: Record<string, string>;
  metadata: Record<string, unknown>;
}

// A collection read the way FUB pages it: `limit` (default 10, max 100), `offset`, the default
// order (newest id first), `sort`, the documented filters, and `_metadata` with a `next` cursor.
// The emulator's `next` continues after the last record of the page in the page's order (keyset),
// so a record changed while a client pages moves, but never makes a neighbour skipped.
export function listRecords(
  all: Iterable<StoredRecord>,
  query: URLSearchParams,
  collection: string,
  defaultSort: string,
  matches: (record: StoredRecord, q: Record<string, string>) => boolean,
): ListPage {
  const limit = query.has('limit') ? Number(query.get('limit')) : DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT)
    throw badRequest(`limit must be a whole number from 1 to ${MAX_LIMIT}`);
  let q: Record<string, string>;
  let after: Cursor['after'] | undefined;
  let offset = 0;
  const next = query.get('next');
  if (next) {
    const cursor = decode(next);
    q = cursor.q;
    after = cursor.after;
  } else {
    q = Object.fromEntries([...query.entries()].filter(([k]) => !['limit', 'offset', 'next'].includes(k)));
    offset = query.has('offset') ? Number(query.get('offset')) : 0;
    if (!Number.isInteger(offset) || offset < 0) throw badRequest('offset must be a whole number');
    if (offset > MAX_OFFSET)
      throw badRequest(`offset over ${MAX_OFFSET}: follow _metadata.next for deep pages`);
  }
  const sort = parseSort(q.sort ?? defaultSort);
  const matching = [...all].filter((r) => matches(r, q)).sort((a, b) => compare(a, b, sort));
  const start = after ? matching.findIndex((r) => compareKey(key(r, sort), r.id, after, sort) > 0) : offset;
  const from = start < 0 ? matching.length : start;
  const items = matching.slice(from, from + limit);
  const more = from + limit < matching.length && items.length > 0;
  const last = items[items.length - 1];
  const nextCursor = more ? encode({ q, after: [key(last, sort), last.id] }) : null;
  return {
    items,
    q,
    metadata: {
      collection,
      offset: from,
      limit,
      total: matching.length,
      next: nextCursor,
      nextLink: nextCursor ? `/v1/${collection}?next=${nextCursor}&limit=${limit}` : null,
    },
  };
}

function parseSort(text: string): Sort {
  const desc = text.startsWith('-');
  const name = desc ? text.slice(1) : text;
  if (!['id', 'created', 'updated', 'name'].includes(name)) throw badRequest(`cannot sort by ${name}`);
  return { key: name as Sort['key'], desc };
}

function key(r: StoredRecord, sort: Sort): string | number {
  if (sort.key === 'id') return r.id;
  if (sort.key === 'name') return scalarText(r.fields.name).toLowerCase();
  return Date.parse(sort.key === 'created' ? r.created : r.updated);
}

function compareKey(k: string | number, id: number, after: Cursor['after'], sort: Sort): number {
  const [ak, aid] = after;
  const byKey = k < ak ? -1 : k > ak ? 1 : 0;
  const order = byKey !== 0 ? byKey : id - aid;
  return sort.desc ? -order : order;
}

function compare(a: StoredRecord, b: StoredRecord, sort: Sort): number {
  return compareKey(key(a, sort), a.id, [key(b, sort), b.id], sort);
}

function encode(cursor: Cursor): string {
  return Buffer.from(JSON.stringify(cursor)).toString('base64url');
}

function decode(text: string): Cursor {
  try {
    const cursor = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as Cursor;
    if (!cursor || typeof cursor.q !== 'object' || !Array.isArray(cursor.after)) throw new Error('shape');
    return cursor;
  } catch {
    throw badRequest('next is not a cursor this API handed out');
  }
}

// The filters FUB documents on collections (crm-apis.md B6): id/ids, created/updated ranges (ISO
// UTC, exclusive), and custom fields by exact value.
export function commonFilters(r: StoredRecord, q: Record<string, string>): boolean {
  const ids = q.id ?? q.ids;
  if (ids !== undefined && !ids.split(',').map(Number).includes(r.id)) return false;
  const t = (v: string): number => Date.parse(v);
  if (q.updatedAfter && !(t(r.updated) > t(q.updatedAfter))) return false;
  if (q.updatedBefore && !(t(r.updated) < t(q.updatedBefore))) return false;
  if (q.createdAfter && !(t(r.created) > t(q.createdAfter))) return false;
  if (q.createdBefore && !(t(r.created) < t(q.createdBefore))) return false;
  for (const [name, value] of Object.entries(q)) {
    if (/^custom[A-Z]/.test(name) && scalarText(r.fields[name]) !== value) return false;
  }
  return true;
}

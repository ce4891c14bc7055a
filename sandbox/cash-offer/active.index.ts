import { StoredOfferRequest } from './sandbox.types';

type Compare = (a: StoredOfferRequest, b: StoredOfferRequest) => number;

// One sort order of the active requests, kept sorted on every change so a page is a slice.
class SortedList {
  readonly items: StoredOfferRequest[] = [];
  constructor(private readonly compare: Compare) {}

  private position(r: StoredOfferRequest): number {
    let lo = 0;
    let hi = this.items.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.compare(this.items[mid], r) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  insert(r: StoredOfferRequest): void {
    const at = this.position(r);
    // Appending is the common case (new requests are the newest and have the highest id).
    if (at === this.items.length) this.items.push(r);
    else this.items.splice(at, 0, r);
  }

  // Bulk load: one sort instead of a splice per item.
  insertMany(rs: readonly StoredOfferRequest[]): void {
    for (const r of rs) this.items.push(r);
    this.items.sort(this.compare);
  }

  remove(r: StoredOfferRequest): void {
    const at = this.position(r);
    if (this.items[at] === r) this.items.splice(at, 1);
  }
}

// Ties are broken by offer_request_id so paging is stable.
const byId: Compare = (a, b) => a.offer_request_id - b.offer_request_id;
const byRequestedAt: Compare = (a, b) => a.requestedAtMs - b.requestedAtMs || byId(a, b);
const byAsking: Compare = (a, b) => a.offer_request_asking - b.offer_request_asking || byId(a, b);

export type ActiveSortKey = 'offer_requested_at' | 'offer_request_asking' | 'offer_request_id';

// The requests shown by GET /active-offer-requests, in every order the API offers, so a page
// costs O(limit) and not a sort of every stored request.
export class ActiveIndex {
  private readonly members = new Set<number>();
  private readonly lists: Record<ActiveSortKey, SortedList> = {
    offer_requested_at: new SortedList(byRequestedAt),
    offer_request_asking: new SortedList(byAsking),
    offer_request_id: new SortedList(byId),
  };

  get size(): number {
    return this.members.size;
  }

  has(r: StoredOfferRequest): boolean {
    return this.members.has(r.offer_request_id);
  }

  add(r: StoredOfferRequest): void {
    if (this.members.has(r.offer_request_id)) return;
    this.members.add(r.offer_request_id);
    for (const list of Object.values(this.lists)) list.insert(r);
  }

  addMany(rs: readonly StoredOfferRequest[]): void {
    const fresh = rs.filter((r) => !this.members.has(r.offer_request_id));
    for (const r of fresh) this.members.add(r.offer_request_id);
    for (const list of Object.values(this.lists)) list.insertMany(fresh);
  }

  remove(r: StoredOfferRequest): void {
    if (!this.members.delete(r.offer_request_id)) return;
    for (const list of Object.values(this.lists)) list.remove(r);
  }

  page(key: ActiveSortKey, descending: boolean, offset: number, limit: number): StoredOfferRequest[] {
    const items = this.lists[key].items;
    if (!descending) return items.slice(offset, offset + limit);
    const page: StoredOfferRequest[] = [];
    for (let i = items.length - 1 - offset; i >= 0 && page.length < limit; i--) page.push(items[i]);
    return page;
  }

  clear(): void {
    this.members.clear();
    for (const list of Object.values(this.lists)) list.items.length = 0;
  }
}

import { ActiveIndex } from './active.index';
import type { SpecReadingValues } from './spec-readings';
import {
  CallRecord,
  EmailRecord,
  SandboxAccount,
  StoredBuyerLead,
  StoredCounterOffer,
  StoredOffer,
  StoredOfferRequest,
  WebhookDeliveryRecord,
} from './sandbox.types';

type OffersOrder = SpecReadingValues['offersOrder'];
type IdSequences = SpecReadingValues['idSequences'];
type RecordKind = 'request' | 'property' | 'offer' | 'counter';

// The last id given of each kind: ours in ranges apart, or every kind from 1 (spec reading idSequences).
const apartSequences = () => ({
  request: 1000,
  property: 500_000,
  offer: 7000,
  counter: 9000,
  email: 0,
  delivery: 0,
});
const fromOneSequences = (): Record<RecordKind, number> => ({
  request: 0,
  property: 0,
  offer: 0,
  counter: 0,
});

// Long benchmarks would otherwise grow the call log without bound.
const MAX_CALLS = 10_000;
const MAX_DELIVERIES = 10_000;

// All of the sandbox's state, in memory. Accounts survive a reset; everything else is emptied.
export class SandboxStore {
  readonly accountsByKey = new Map<string, SandboxAccount>();
  readonly requests = new Map<number, StoredOfferRequest>();
  readonly requestsByProperty = new Map<number, StoredOfferRequest>();
  readonly offers = new Map<number, StoredOffer>();
  // The same offers in the order they were last written: a table read with no ORDER BY lists rows
  // so in PostgreSQL, where an UPDATE writes the row anew at the heap's end (spec reading offersOrder).
  readonly offersByWrite = new Map<number, StoredOffer>();
  readonly offersByRequest = new Map<number, StoredOffer[]>();
  readonly counters = new Map<number, StoredCounterOffer>();
  readonly leads: StoredBuyerLead[] = [];
  readonly emails: EmailRecord[] = [];
  readonly webhookUrls = new Map<string, string>();
  readonly deliveries: WebhookDeliveryRecord[] = [];
  readonly calls: CallRecord[] = [];
  readonly active = new ActiveIndex();
  // Requests whose expiry the sweeper must watch (offer_request_expires_at set while active).
  readonly expiringRequests = new Set<StoredOfferRequest>();
  readonly activeOffers = new Set<StoredOffer>();
  // Requests made through the API (not seed-active): the autopilot's candidates.
  readonly apiRequests = new Set<StoredOfferRequest>();
  private seq = apartSequences();
  private fromOne = fromOneSequences();

  // The earliest expiry (offer or request) not yet swept; lets the per-call sweep be a comparison.
  nextExpiryMs = Number.POSITIVE_INFINITY;

  // `idSequences`: asked at each new id, since a test may switch the reading while records exist.
  constructor(
    readonly accounts: readonly SandboxAccount[],
    private readonly idSequences: () => IdSequences = () => 'apart',
  ) {
    for (const account of accounts) this.accountsByKey.set(account.key, account);
  }

  nextRequestId = (): number => this.nextId('request', (id) => this.requests.has(id));
  nextPropertyId = (): number => this.nextId('property', (id) => this.requestsByProperty.has(id));
  nextOfferId = (): number => this.nextId('offer', (id) => this.offers.has(id));
  nextCounterId = (): number => this.nextId('counter', (id) => this.counters.has(id));
  nextEmailId = (): number => ++this.seq.email;
  nextDeliveryId = (): number => ++this.seq.delivery;

  // An id of its kind no record holds: the two numberings share each kind's ids, so one switched to
  // mid-run skips those the other gave.
  private nextId(kind: RecordKind, taken: (id: number) => boolean): number {
    const seq = this.idSequences() === 'from-one' ? this.fromOne : this.seq;
    let id = ++seq[kind];
    while (taken(id)) id = ++seq[kind];
    return id;
  }

  accountOf(r: StoredOfferRequest): SandboxAccount | undefined {
    return this.accountsByKey.get(r.ownerKey);
  }

  addRequest(r: StoredOfferRequest): void {
    this.requests.set(r.offer_request_id, r);
    this.requestsByProperty.set(r.inventory_property_id, r);
    this.offersByRequest.set(r.offer_request_id, []);
  }

  addOffer(o: StoredOffer): void {
    this.offers.set(o.offer_id, o);
    this.offersByWrite.set(o.offer_id, o);
    this.offersByRequest.get(o.offer_request_id)?.push(o);
  }

  noteOfferWritten(o: StoredOffer): void {
    this.offersByWrite.delete(o.offer_id);
    this.offersByWrite.set(o.offer_id, o);
  }

  // Every offer, in the order the reading lists them.
  offersInOrder(order: OffersOrder): Iterable<StoredOffer> {
    if (order === 'newest-first') return [...this.offers.values()].reverse();
    return order === 'updated-last' ? this.offersByWrite.values() : this.offers.values();
  }

  noteExpiry(iso: string | null): void {
    const ms = iso === null ? NaN : Date.parse(iso);
    if (ms < this.nextExpiryMs) this.nextExpiryMs = ms;
  }

  countersOfRequest(requestId: number): StoredCounterOffer[] {
    return [...this.counters.values()].filter((c) => c.offer_request_id === requestId);
  }

  logCall(call: CallRecord): void {
    if (this.calls.length >= MAX_CALLS) this.calls.shift();
    this.calls.push(call);
  }

  logDelivery(d: WebhookDeliveryRecord): void {
    if (this.deliveries.length >= MAX_DELIVERIES) this.deliveries.shift();
    this.deliveries.push(d);
  }

  reset(): void {
    this.requests.clear();
    this.requestsByProperty.clear();
    this.offers.clear();
    this.offersByWrite.clear();
    this.offersByRequest.clear();
    this.counters.clear();
    this.leads.length = 0;
    this.emails.length = 0;
    this.webhookUrls.clear();
    this.deliveries.length = 0;
    this.calls.length = 0;
    this.active.clear();
    this.expiringRequests.clear();
    this.activeOffers.clear();
    this.apiRequests.clear();
    this.nextExpiryMs = Number.POSITIVE_INFINITY;
    this.seq = apartSequences();
    this.fromOne = fromOneSequences();
  }
}

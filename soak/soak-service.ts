import type { SpecReadingValues } from '../sandbox/cash-offer/spec-readings';
import { nearExpiry } from './soak-clocks';
import { httpJson } from './soak-http';
import { CASH_OFFER_KEY, type SimulatorsProcess } from './soak-processes';
import type { SoakRandom } from './soak-random';
import type { Listing } from './soak-world';

// The service's side, through the sandbox's control API: what it stores, and its buyers, who
// approve this run's requests and make offers on them (the autopilot stays off, so this is seeded),
// half of them on a near clock (soak-clocks.ts), drawn from a PRNG of its own.

// The events the spec names; anything else the service calls back with is the UPDATE.
const NOT_AN_UPDATE = new Set(['new_offer', 'offer_request_approved']);

export interface StoredRequest {
  offer_request_id: number;
  offer_request_status: string;
  offer_request_external_id?: string | null;
  inventory_property_id?: string | number | null;
  property?: Record<string, unknown>;
}

export interface StoredOffer {
  offer_id: number;
  offer_request_id: number;
  offer_status: string;
  offer_amount: number;
  offer_is_counter_offer?: boolean | null;
  counter_offer_id?: number | null;
  created_at?: string | null;
  offer_expires?: string | null;
  offer_decided_at?: string | null;
}

export interface StoredCounter {
  counter_offer_id: number;
  offer_id: number;
  counter_offer_status: string;
  counter_offer_amount?: number;
  counter_offer_expires?: string | null;
  created_at?: string | null;
  updated_at?: string | null; // when its buyer answered it, or it lapsed
}

export class SoakService {
  // Counters whose buyer was drawn to answer or to stay silent (silentBuyers), and the silent ones.
  private readonly drawn = new Set<number>();
  private readonly silent = new Set<number>();

  constructor(
    private readonly sim: SimulatorsProcess,
    private readonly random: SoakRandom,
    private readonly clockRandom: SoakRandom,
    // Whether a counter's buyer never answers it (a quarter of them): a PRNG of its own, so the rest
    // of a seed's plan is unchanged. Those counters wait until they run out (and lapse, under the
    // spec reading counterLapse), or until the seller turns the offer down.
    private readonly silentBuyers?: SoakRandom,
  ) {}

  // `decisionPending(requestId)`: an agent's decision on an offer of that request has not reached
  // the service yet. A buyer then leaves the request's counters alone: accepting one rejects every
  // other offer, which would turn the agent's decision into a refused one (a case of its own, the
  // decision e2e tests'), and the soak could no longer tell a refusal from a loss.
  async buyersTick(
    listings: ReadonlyMap<string, Listing>,
    decisionPending: (requestId: string) => boolean = () => false,
  ): Promise<void> {
    const offers = await this.offers();
    await this.answerCounters(listings, offers, decisionPending);
    const count = new Map<number, number>();
    for (const o of offers) count.set(o.offer_request_id, (count.get(o.offer_request_id) ?? 0) + 1);
    for (const q of await this.requests()) {
      const listing = listings.get(String(q.offer_request_external_id));
      if (!listing || !this.random.chance(0.5)) continue;
      const id = q.offer_request_id;
      if (q.offer_request_status === 'in_review') await this.control('POST', `/offer-requests/${id}/process`);
      if (q.offer_request_status === 'in_review' || q.offer_request_status === 'processing')
        await this.control('POST', `/offer-requests/${id}/approve`);
      else if (q.offer_request_status === 'active' && (count.get(id) ?? 0) < listing.plannedOffers) {
        const expires = nearExpiry(this.clockRandom, Date.now());
        await this.control('POST', `/offer-requests/${id}/offers`, {
          offer_amount: this.random.int(200, 650) * 1000,
          ...(expires ? { offer_expires: expires } : {}),
        });
      }
    }
  }

  // The buyers answer pending counters through the control API (docs/sandbox.md): accepted (a new
  // accepted offer, the rest of the request rejected) or rejected (the UPDATE callback), some soon
  // after the counter lands, so the answer meets the daemon's own write of the counter.
  private async answerCounters(
    listings: ReadonlyMap<string, Listing>,
    offers: StoredOffer[],
    decisionPending: (requestId: string) => boolean,
  ): Promise<void> {
    const requestOf = new Map(offers.map((o) => [o.offer_id, o.offer_request_id]));
    const requests = new Map((await this.requests()).map((q) => [q.offer_request_id, q]));
    const accepted = new Set<number>(); // requests whose other counters an acceptance just withdrew
    for (const c of await this.counters()) {
      if (c.counter_offer_status !== 'pending') continue;
      const request = requests.get(requestOf.get(c.offer_id) ?? -1);
      if (!request || !listings.has(String(request.offer_request_external_id))) continue;
      if (accepted.has(request.offer_request_id) || !this.random.chance(0.3)) continue;
      const accepts = this.random.chance(0.5);
      // After the draws above: a silent buyer takes nothing from the PRNG the rest of the plan uses.
      if (this.staysSilent(c.counter_offer_id)) continue;
      if (accepts) {
        if (decisionPending(String(request.offer_request_id))) continue;
        if (await this.answer(c, 'accept')) accepted.add(request.offer_request_id);
      } else await this.answer(c, 'reject');
    }
  }

  private staysSilent(counterId: number): boolean {
    if (!this.drawn.has(counterId)) {
      this.drawn.add(counterId);
      if (this.silentBuyers?.chance(0.25)) this.silent.add(counterId);
    }
    return this.silent.has(counterId);
  }

  // False where the counter lapsed since it was listed (spec reading counterLapse): too late.
  private async answer(c: StoredCounter, answer: 'accept' | 'reject'): Promise<boolean> {
    try {
      await this.control('POST', `/counter-offers/${c.counter_offer_id}/${answer}`);
      return true;
    } catch (error) {
      if (/: 409 .*can no longer answer/.test(error instanceof Error ? error.message : '')) return false;
      throw error;
    }
  }

  requests(): Promise<StoredRequest[]> {
    return this.control('GET', '/offer-requests');
  }

  offers(): Promise<StoredOffer[]> {
    return this.control('GET', '/offers');
  }

  counters(): Promise<StoredCounter[]> {
    return this.control('GET', '/counter-offers');
  }

  // The faults of SOAK_CASH_OFFER_FAULTS are the daemon's to face; the check's own reads of the API
  // (listedStatuses) are made once the run is settled, without them.
  async clearFaults(): Promise<void> {
    await this.control('DELETE', '/faults');
  }

  // The readings of what the spec leaves "not shown" the sandbox answers under (SOAK_SPEC_READINGS).
  specReadings(): Promise<SpecReadingValues> {
    return this.control('GET', '/spec-readings');
  }

  // The offers whose new_offer event reached the daemon (offersDelivered).
  async offersDelivered(): Promise<Set<number>> {
    return offersDelivered(await this.control<WebhookDelivery[]>('GET', '/webhook-deliveries'));
  }

  // The counters and offers named by an UPDATE the service gave up delivering (updatesGivenUp).
  async updatesGivenUp(): Promise<Set<string>> {
    return updatesGivenUp(await this.control<WebhookDelivery[]>('GET', '/webhook-deliveries'));
  }

  // Each offer's status as the service's API lists it to the brokerage (under a spec reading it may
  // differ from what the sandbox stores: a countered offer listed `active`). Paged with limit and
  // offset until an empty page, an error past the last one, or a page that brings nothing new (a
  // service that ignores the query).
  // The agent's key as the service takes it (the sandbox's authorizationForm reading).
  private async agentAuthorization(): Promise<string> {
    const { authorizationForm } = await this.specReadings();
    return authorizationForm === 'bearer-only' ? `Bearer ${CASH_OFFER_KEY}` : CASH_OFFER_KEY;
  }

  async listedStatuses(): Promise<Map<number, string>> {
    const listed = new Map<number, string>();
    for (let offset = 0; ;) {
      let page: StoredOffer[];
      try {
        page = await httpJson<StoredOffer[]>(
          'GET',
          `${this.sim.cashOfferUrl}/offers?limit=100&offset=${offset}`,
          undefined,
          { authorization: await this.agentAuthorization() },
        );
      } catch (error) {
        if (offset > 0 && /: (400|404|422) /.test(String(error))) return listed;
        // A service that refuses any query parameter (offersQuery: refused) lists every offer at once.
        if (offset === 0 && /: (400|422) /.test(String(error))) {
          const all = await httpJson<StoredOffer[]>('GET', `${this.sim.cashOfferUrl}/offers`, undefined, {
            authorization: await this.agentAuthorization(),
          });
          for (const o of all) listed.set(o.offer_id, o.offer_status);
          return listed;
        }
        throw error;
      }
      const fresh = page.filter((o) => !listed.has(o.offer_id));
      if (fresh.length === 0) return listed;
      for (const o of fresh) listed.set(o.offer_id, o.offer_status);
      offset += page.length;
    }
  }

  private control<T>(method: string, path: string, body?: unknown): Promise<T> {
    return httpJson<T>(method, `${this.sim.controlUrl}${path}`, body);
  }
}

export interface WebhookDelivery {
  event: Record<string, unknown>;
  outcome: string;
}

// The offers whose new_offer event reached the daemon: an attempt it answered 2xx.
export function offersDelivered(deliveries: readonly WebhookDelivery[]): Set<number> {
  const delivered = new Set<number>();
  for (const d of deliveries)
    if (d.outcome === 'delivered' && d.event.event === 'new_offer') delivered.add(Number(d.event.offer_id));
  return delivered;
}

// The counters and offers named by an UPDATE callback (a buyer's refusal of a counter) the service
// gave up delivering after its last retry: `counter:<id>` and `offer:<id>`, whatever the UPDATE's
// shape (flat, nested, ids as text).
export function updatesGivenUp(deliveries: readonly WebhookDelivery[]): Set<string> {
  const named = new Set<string>();
  for (const d of deliveries) {
    if (d.outcome !== 'gave_up' || NOT_AN_UPDATE.has(String(d.event.event))) continue;
    for (const [, counter, id] of JSON.stringify(d.event).matchAll(/"(counter_)?offer_id"\s*:\s*"?(\d+)"?/g))
      named.add(`${counter ? 'counter' : 'offer'}:${id}`);
  }
  return named;
}

import { httpJson } from './soak-http';
import type { SimulatorsProcess } from './soak-processes';
import type { SoakRandom } from './soak-random';
import type { Listing } from './soak-world';

// The service's side, through the sandbox's control API: what it stores, and its buyers, who
// approve this run's requests and make offers on them (the autopilot stays off, so this is seeded).

export interface StoredRequest {
  offer_request_id: number;
  offer_request_status: string;
  offer_request_external_id?: string | null;
  inventory_property_id?: string | number | null;
}

export interface StoredOffer {
  offer_id: number;
  offer_request_id: number;
  offer_status: string;
  offer_amount: number;
}

export interface StoredCounter {
  counter_offer_id: number;
  offer_id: number;
  counter_offer_status: string;
}

export class SoakService {
  constructor(
    private readonly sim: SimulatorsProcess,
    private readonly random: SoakRandom,
  ) {}

  async buyersTick(listings: ReadonlyMap<string, Listing>): Promise<void> {
    const offers = await this.offers();
    const count = new Map<number, number>();
    for (const o of offers) count.set(o.offer_request_id, (count.get(o.offer_request_id) ?? 0) + 1);
    for (const q of await this.requests()) {
      const listing = listings.get(String(q.offer_request_external_id));
      if (!listing || !this.random.chance(0.5)) continue;
      const id = q.offer_request_id;
      if (q.offer_request_status === 'in_review') await this.control('POST', `/offer-requests/${id}/process`);
      if (q.offer_request_status === 'in_review' || q.offer_request_status === 'processing')
        await this.control('POST', `/offer-requests/${id}/approve`);
      else if (q.offer_request_status === 'active' && (count.get(id) ?? 0) < listing.plannedOffers)
        await this.control('POST', `/offer-requests/${id}/offers`, {
          offer_amount: this.random.int(200, 650) * 1000,
        });
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

  private control<T>(method: string, path: string, body?: unknown): Promise<T> {
    return httpJson<T>(method, `${this.sim.controlUrl}${path}`, body);
  }
}

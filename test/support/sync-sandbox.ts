import type { Offer, OfferRequestRecord } from '../../src/cash-offer/schema';
import type { WebhookDeliveryRecord } from '../../sandbox/cash-offer/sandbox.types';

export interface StoredRequest extends OfferRequestRecord {
  offer_request_id: number;
  offer_request_external_id?: string | null;
  // The property as the service holds it now (the control API's view).
  property: Record<string, unknown>;
}

// The Cash Offer sandbox's control API, as the tests use it.
export class SandboxControl {
  constructor(private readonly controlUrl: string) {}

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(`${this.controlUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return (text ? JSON.parse(text) : undefined) as T;
  }

  requests(): Promise<StoredRequest[]> {
    return this.call('GET', '/offer-requests');
  }

  offers(): Promise<Offer[]> {
    return this.call('GET', '/offers');
  }

  calls(): Promise<{ method: string; path: string; status: number; fault?: string }[]> {
    return this.call('GET', '/calls');
  }

  approve(requestId: number): Promise<StoredRequest> {
    return this.call('POST', `/offer-requests/${requestId}/approve`);
  }

  // Any status from any status (docs/sandbox.md, control API): a reopened request, say.
  moveRequest(requestId: number, status: string): Promise<StoredRequest> {
    return this.call('POST', `/offer-requests/${requestId}/status`, { offer_request_status: status });
  }

  makeOffer(requestId: number, overrides: Record<string, unknown> = {}): Promise<Offer> {
    return this.call('POST', `/offer-requests/${requestId}/offers`, overrides);
  }

  // The buyer takes the offer back (docs/sandbox.md, control API).
  withdrawOffer(offerId: number): Promise<Offer> {
    return this.call('POST', `/offers/${offerId}/withdraw`);
  }

  acceptCounter(counterId: number): Promise<Offer> {
    return this.call('POST', `/counter-offers/${counterId}/accept`);
  }

  rejectCounter(counterId: number): Promise<unknown> {
    return this.call('POST', `/counter-offers/${counterId}/reject`);
  }

  counters(): Promise<{ counter_offer_id: number; offer_id: number; counter_offer_status: string }[]> {
    return this.call('GET', '/counter-offers');
  }

  specReadings(readings: Record<string, unknown>): Promise<unknown> {
    return this.call('PUT', '/spec-readings', readings);
  }

  faults(config: Record<string, unknown>): Promise<unknown> {
    return this.call('PUT', '/faults', config);
  }

  clearFaults(): Promise<unknown> {
    return this.call('DELETE', '/faults');
  }

  deliveries(): Promise<WebhookDeliveryRecord[]> {
    return this.call('GET', '/webhook-deliveries');
  }
}

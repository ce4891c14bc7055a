import type { Offer } from '../../cash-offer/schema';

export interface OfferSummary {
  requestId: number;
  externalId?: string | null;
  count: number;
  // The accepted offer when there is one, else the highest offer still open; null when none is.
  best: number | null;
  accepted: boolean;
}

const CLOSED = new Set(['rejected', 'expired']);

// Folds the offers of each request, a page at a time, into what the listing deal shows.
export class OfferSummaries {
  private readonly byRequest = new Map<number, OfferSummary>();

  add(offer: Offer): void {
    const summary = this.byRequest.get(offer.offer_request_id) ?? {
      requestId: offer.offer_request_id,
      externalId: offer.offer_request_external_id,
      count: 0,
      best: null,
      accepted: false,
    };
    summary.count += 1;
    summary.externalId ??= offer.offer_request_external_id;
    if (offer.offer_status === 'accepted') {
      summary.accepted = true;
      summary.best = offer.offer_amount;
    } else if (!summary.accepted && !CLOSED.has(offer.offer_status)) {
      summary.best = Math.max(summary.best ?? 0, offer.offer_amount);
    }
    this.byRequest.set(offer.offer_request_id, summary);
  }

  all(): OfferSummary[] {
    return [...this.byRequest.values()];
  }
}

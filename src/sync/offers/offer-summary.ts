import type { Offer } from '../../cash-offer/schema';
import { stageFor } from './offer-record.view';

export interface OfferSummary {
  requestId: number;
  externalId?: string | null;
  count: number;
  // The accepted offer when there is one, else the highest offer still open; null when none is.
  best: number | null;
  accepted: boolean;
  // When the service says the accepted offer was decided (its offer_decided_at): the time the request
  // went under contract, which orders that status against a later read (a request reopened since).
  acceptedAt?: Date;
  // The accepted offer, whose first sighting dates the acceptance when the service gives no time.
  acceptedOfferId?: number;
  // When the read that listed the accepted offer was made (undefined when not known).
  acceptedReadAt?: Date;
  // When the oldest of the offers it folds was read (undefined when any one's read time is unknown):
  // the summary is no newer than that.
  readAt?: Date;
}

// An offer nobody can accept any more is not the best one: refused, run out, or taken back by its
// buyer, whatever word the service lists that under. Closed exactly where its record shows it so.
const isClosed = (status: string): boolean => ['rejected', 'expired'].includes(stageFor(status, undefined));

// Folds the offers of each request, a page at a time, into what the listing deal shows.
export class OfferSummaries {
  private readonly byRequest = new Map<number, OfferSummary>();

  add(offer: Offer, readAt?: Date): void {
    const known = this.byRequest.get(offer.offer_request_id);
    const summary = known ?? {
      requestId: offer.offer_request_id,
      externalId: offer.offer_request_external_id,
      count: 0,
      best: null,
      accepted: false,
      readAt,
    };
    if (known) summary.readAt = earliest(summary.readAt, readAt);
    summary.count += 1;
    summary.externalId ??= offer.offer_request_external_id;
    if (offer.offer_status === 'accepted') {
      summary.accepted = true;
      summary.acceptedOfferId = offer.offer_id;
      summary.acceptedReadAt = readAt;
      const decidedMs = Date.parse(offer.offer_decided_at ?? '');
      if (Number.isFinite(decidedMs)) summary.acceptedAt = new Date(decidedMs);
      summary.best = offer.offer_amount;
    } else if (!summary.accepted && !isClosed(offer.offer_status)) {
      summary.best = Math.max(summary.best ?? 0, offer.offer_amount);
    }
    this.byRequest.set(offer.offer_request_id, summary);
  }

  all(): OfferSummary[] {
    return [...this.byRequest.values()];
  }
}

function earliest(a: Date | undefined, b: Date | undefined): Date | undefined {
  if (!a || !b) return undefined;
  return a.getTime() <= b.getTime() ? a : b;
}

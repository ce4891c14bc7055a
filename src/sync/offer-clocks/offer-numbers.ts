import { Injectable } from '@nestjs/common';
import type { Offer } from '../../cash-offer/schema';
import { LinkRepository } from '../../ledger';
import { MetricsService } from '../../observability/metrics/metrics.service';
import { OFFER_DECISION_LINK, OFFER_EXPIRED_LINK } from './offer-clocks.constants';

const DECIDED = new Set(['accepted', 'rejected']);

// Seconds from an offer to its decision, as the service dates both; undefined when it does not.
export function secondsToDecision(offer: Pick<Offer, 'created_at' | 'offer_decided_at'>): number | undefined {
  const from = Date.parse(offer.created_at);
  const to = Date.parse(offer.offer_decided_at ?? '');
  if (!Number.isFinite(from) || !Number.isFinite(to) || to < from) return undefined;
  return Math.round((to - from) / 1000);
}

// The numbers a broker asks for, kept in the ledger so `cli status` and the page can show them after
// a restart: each decided offer once (with its time to decision), each offer that expired undecided.
@Injectable()
export class OfferNumbers {
  constructor(
    private readonly links: LinkRepository,
    private readonly metrics: MetricsService,
  ) {}

  // Offers a reconcile pass listed: the decided ones not yet counted are counted now, once each
  // (the histogram's first pass after an upgrade counts every decision the service still lists).
  async learnDecisions(brokerageId: string, offers: readonly Offer[]): Promise<void> {
    const decided = offers.filter((o) => DECIDED.has(o.offer_status));
    if (decided.length === 0) return;
    const outcomes = await this.links.upsertLinks(
      brokerageId,
      OFFER_DECISION_LINK,
      decided.map((o) => ({
        remoteId: String(o.offer_id),
        crmId: String(o.offer_id),
        contentHash: String(secondsToDecision(o) ?? ''),
      })),
    );
    const byId = new Map(decided.map((o) => [String(o.offer_id), o]));
    for (const { remoteId, outcome } of outcomes) {
      if (outcome !== 'created') continue;
      const seconds = secondsToDecision(byId.get(remoteId)!);
      if (seconds !== undefined) this.metrics.offerDecided(brokerageId, seconds);
    }
  }

  // True the first time: the caller counts the offer in the metric only then.
  async expiredUndecided(brokerageId: string, offerId: number): Promise<boolean> {
    const [result] = await this.links.upsertLinks(brokerageId, OFFER_EXPIRED_LINK, [
      { remoteId: String(offerId), crmId: String(offerId), contentHash: 'expired' },
    ]);
    return result?.outcome === 'created';
  }
}

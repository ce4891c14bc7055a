import { Injectable } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { LinkRepository } from '../../ledger';
import { LINK } from '../common/listing-deal.properties';
import { decodeCounterLink } from '../offers/counter-link';
import { isAnsweredCounter } from '../offers/offer-record.view';
import { OFFER_DECISION_LINK, OFFER_EXPIRED_LINK } from './offer-clocks.constants';

export const FIGURES_WINDOW_DAYS = 30;

// What `cli status` and the page say of a brokerage's offers.
export interface OfferFigures {
  // Offers decided in the window, and the median time from offer to decision among them.
  decided: number;
  medianDecisionSeconds: number | null;
  // Offers that reached their expiry with nobody deciding them, in the window.
  expiredUndecided: number;
  // Counters this brokerage sent that no buyer has answered yet.
  countersOutstanding: number;
}

export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : Math.round((sorted[mid - 1] + sorted[mid]) / 2);
}

// Reads the figures from the ledger (offer-numbers.ts writes them; counters are their links).
@Injectable()
export class OfferFiguresReader {
  constructor(
    private readonly links: LinkRepository,
    private readonly clock: Clock,
  ) {}

  async read(brokerageId: string): Promise<OfferFigures> {
    const since = new Date(this.clock.nowMs() - FIGURES_WINDOW_DAYS * 24 * 3600 * 1000);
    const decisions = await this.links.listCreatedSince(brokerageId, OFFER_DECISION_LINK, since);
    // "" is a decision the service gave no time for.
    const seconds = decisions.filter((l) => l.contentHash !== '').map((l) => Number(l.contentHash));
    const expired = await this.links.listCreatedSince(brokerageId, OFFER_EXPIRED_LINK, since);
    const counters = await this.links.listAll(brokerageId, LINK.counter);
    return {
      decided: decisions.length,
      medianDecisionSeconds: median(seconds),
      expiredUndecided: expired.length,
      countersOutstanding: counters.filter((l) => !isAnsweredCounter(decodeCounterLink(l).status)).length,
    };
  }
}

// "12 decided (median 5.2 h to decision), 1 expired undecided, 2 counters outstanding"
export function formatOfferFigures(f: OfferFigures): string {
  const median =
    f.medianDecisionSeconds === null ? '' : ` (median ${decisionTime(f.medianDecisionSeconds)} to decision)`;
  return `${f.decided} decided${median}, ${f.expiredUndecided} expired undecided, ${f.countersOutstanding} counters outstanding`;
}

function decisionTime(seconds: number): string {
  if (seconds < 3600) return `${Math.round(seconds / 60)} min`;
  if (seconds < 48 * 3600) return `${(seconds / 3600).toFixed(1)} h`;
  return `${(seconds / 86400).toFixed(1)} days`;
}

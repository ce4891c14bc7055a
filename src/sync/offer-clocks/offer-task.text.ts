import type { Offer } from '../../cash-offer/schema';
import { offerEconomics } from '../offers/offer-economics';

export interface OfferTaskText {
  subject: string;
  body: string;
}

export const money = (n: number): string => `$${n.toLocaleString('en-US', { maximumFractionDigits: 2 })}`;

// "Thu 26 Nov 2026, 14:00 UTC": the daemon does not know the agent's time zone, so it says which.
export function expiryWords(iso: string): string {
  const d = new Date(iso);
  if (!Number.isFinite(d.getTime())) return iso;
  const day = d.toLocaleDateString('en-GB', {
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    timeZone: 'UTC',
  });
  const time = d.toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit', timeZone: 'UTC' });
  return `${day.replace(',', '')}, ${time} UTC`;
}

function terms(offer: Offer): string[] {
  const lines = [
    `Earnest money: ${money(offer.earnest_money)}${offer.em_hard_post_inspection ? ' (hard after inspection)' : ''}`,
    `Inspection period: ${offer.inspection_period} days`,
  ];
  if (offer.flexible_closing) lines.push('Flexible closing');
  if (offer.lease_back) lines.push(`Lease back: ${offer.lease_back_period} days`);
  if (offer.post_possession) lines.push(`Post possession: ${offer.post_possession_period} days`);
  if (offer.waive_warranty) lines.push('Warranty waived');
  if (offer.offer_memo) lines.push(`Buyer's note: ${offer.offer_memo}`);
  return lines;
}

// What the agent (or the broker) reads on the task: which offer, how much, what the buyer asks, and
// when it runs out. The task's key is added by the CRM adapter, not here.
export function offerTaskText(offer: Offer, forWhom: 'agent' | 'broker', lead: string): OfferTaskText {
  const amount = money(offer.offer_amount);
  const expires = expiryWords(offer.offer_expires);
  const subject =
    forWhom === 'agent'
      ? `Decide on cash offer ${offer.offer_id} (${amount}): expires in ${lead}`
      : `Undecided cash offer ${offer.offer_id} (${amount}) expires in ${lead}`;
  const opening =
    forWhom === 'agent'
      ? `A cash offer of ${amount} on request ${offer.offer_request_id} expires ${expires}. ` +
        'Accept, reject or counter it by moving its offer record; once it expires the seller loses it.'
      : `Cash offer ${offer.offer_id} of ${amount} on request ${offer.offer_request_id} is still ` +
        `undecided and expires ${expires}. The listing agent has a task for it.`;
  const net = offerEconomics(offer).sellerNet;
  return {
    subject,
    body: [opening, '', `Seller nets: ${money(net)} before other closing costs`, ...terms(offer)].join('\n'),
  };
}

import type { CounterOfferBody } from '../../cash-offer/schema';
import { expiryWords, money, type OfferTaskText } from './offer-task.text';

// The counter as the reminder tells of it: what the ledger keeps (amount, expiry), and the body the
// daemon sent when the outbox still holds it (terms the agent changed; the rest are the offer's).
export interface CounterForTask {
  offerId: number;
  requestId?: number;
  amount?: number;
  expiresMs: number;
  body?: CounterOfferBody;
}

const yes = (flag: boolean | undefined, words: string): string[] => (flag === true ? [words] : []);

function counterTerms(body: CounterOfferBody | undefined): string[] {
  if (!body) return [];
  const lines: string[] = [];
  if (body.counter_earnest_money !== undefined)
    lines.push(
      `Earnest money: ${money(body.counter_earnest_money)}${body.counter_em_hard_post_inspection ? ' (hard after inspection)' : ''}`,
    );
  if (body.counter_inspection_period !== undefined)
    lines.push(`Inspection period: ${body.counter_inspection_period} days`);
  if (body.listing_broker_commission_pct !== undefined)
    lines.push(`Listing broker commission: ${body.listing_broker_commission_pct}%`);
  lines.push(...yes(body.counter_flexible_closing, 'Flexible closing'));
  if (body.counter_lease_back === true)
    lines.push(
      `Lease back${body.counter_lease_back_period ? `: ${body.counter_lease_back_period} days` : ''}`,
    );
  if (body.counter_post_possession === true)
    lines.push(
      `Post possession${body.counter_post_possession_period ? `: ${body.counter_post_possession_period} days` : ''}`,
    );
  lines.push(...yes(body.counter_waive_warranty, 'Warranty waived'));
  if (body.counter_offer_terms && Object.keys(body.counter_offer_terms).length > 0)
    lines.push(`Other terms: ${JSON.stringify(body.counter_offer_terms)}`);
  if (body.counter_offer_memo) lines.push(`Your note to the buyer: ${body.counter_offer_memo}`);
  return lines;
}

// What the listing agent reads on a counter's reminder: their counter, that the buyer has not
// answered, what they can still do, and when it runs out. The key is added by the CRM adapter.
export function counterTaskText(counter: CounterForTask, lead: string): OfferTaskText {
  const amount = counter.amount !== undefined ? ` of ${money(counter.amount)}` : '';
  const on = counter.requestId !== undefined ? ` on request ${counter.requestId}` : '';
  const terms = counterTerms(counter.body);
  return {
    subject: `Counter${amount} on cash offer ${counter.offerId} unanswered: expires in ${lead}`,
    body: [
      `Your counter${amount} to cash offer ${counter.offerId}${on} expires ${expiryWords(new Date(counter.expiresMs).toISOString())}, ` +
        "and the buyer has not answered it. Follow up with the buyer's side if the seller wants this deal; " +
        'once it expires the buyer can no longer accept it. This task closes itself when the buyer answers.',
      ...(terms.length > 0 ? ['', 'Your counter asked for:', ...terms] : []),
      '',
      counter.body
        ? 'Terms your counter did not change stay as the buyer offered them.'
        : "The counter's terms are on the offer record.",
    ].join('\n'),
  };
}

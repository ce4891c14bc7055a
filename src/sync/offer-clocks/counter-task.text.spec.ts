import type { CounterOfferBody } from '../../cash-offer/schema';
import { counterTaskText } from './counter-task.text';

const expiresMs = Date.parse('2026-11-26T14:00:00Z');

describe('counterTaskText', () => {
  it('tells the agent their counter, that the buyer is silent, the terms they asked for and the expiry', () => {
    const body: CounterOfferBody = {
      offer_id: 7012,
      counter_offer_amount: 371000,
      counter_offer_expires: '2026-11-26T14:00:00Z',
      counter_earnest_money: 10000,
      counter_em_hard_post_inspection: true,
      counter_inspection_period: 7,
      counter_lease_back: true,
      counter_lease_back_period: 30,
      counter_offer_terms: { closing_days: 21 },
      counter_offer_memo: 'Meet in the middle',
    };
    expect(counterTaskText({ offerId: 7012, requestId: 88, amount: 371000, expiresMs, body }, '24h')).toEqual(
      {
        subject: 'Counter of $371,000 on cash offer 7012 unanswered: expires in 24h',
        body: [
          "Your counter of $371,000 to cash offer 7012 on request 88 expires Thu 26 Nov 2026, 14:00 UTC, and the buyer has not answered it. Follow up with the buyer's side if the seller wants this deal; once it expires the buyer can no longer accept it. This task closes itself when the buyer answers.",
          '',
          'Your counter asked for:',
          'Earnest money: $10,000 (hard after inspection)',
          'Inspection period: 7 days',
          'Lease back: 30 days',
          'Other terms: {"closing_days":21}',
          'Your note to the buyer: Meet in the middle',
          '',
          'Terms your counter did not change stay as the buyer offered them.',
        ].join('\n'),
      },
    );
  });

  it('says what it can when the counter command is no longer kept', () => {
    const text = counterTaskText({ offerId: 7012, amount: 371000, expiresMs }, '2h');
    expect(text.subject).toBe('Counter of $371,000 on cash offer 7012 unanswered: expires in 2h');
    expect(text.body).toContain("The counter's terms are on the offer record.");
    expect(counterTaskText({ offerId: 7012, expiresMs }, '2h').subject).toBe(
      'Counter on cash offer 7012 unanswered: expires in 2h',
    );
  });
});

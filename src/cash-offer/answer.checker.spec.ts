import { AnswerChecker } from './answer.checker';
import { OPERATIONS } from './cash-offer.operations';

const offer = {
  offer_id: 7,
  offer_request_id: 3,
  offer_amount: 250000,
  buyer_pays_buyer_broker_commission: false,
  buyer_pays_listing_broker_commission: false,
  buyer_broker_commission_pct: 3,
  listing_broker_commission_pct: 2.5,
  created_at: '2026-06-01T10:00:00Z',
  offer_expires: '2026-06-08T10:00:00Z',
  offer_memo: '',
  offer_status: 'active',
  earnest_money: 5000,
  em_hard_post_inspection: false,
  lease_back: false,
  lease_back_period: 0,
  flexible_closing: true,
  post_possession: false,
  post_possession_period: 0,
  waive_warranty: false,
  inspection_period: 10,
};

describe('AnswerChecker', () => {
  const warnings: string[] = [];
  const checker = new AnswerChecker('acme', { warn: (m: string) => warnings.push(m) });
  beforeEach(() => (warnings.length = 0));

  it('says nothing about an answer that keeps the contract', () => {
    checker.check(OPERATIONS.listOffers, [offer]);
    expect(warnings).toEqual([]);
  });

  it('names the record and the field of a broken rule or an unknown field, once per field', () => {
    const odd = { ...offer, offer_amount: 'lots', buyer_rating: 5 };
    checker.check(OPERATIONS.listOffers, [odd, { ...odd, offer_id: 8 }]);
    expect(warnings).toEqual([
      expect.stringContaining(
        'GET /offers answered offer_id 7 where offer_amount must be a whole, non-negative number of dollars; got "lots"',
      ),
      expect.stringContaining('offer_id 7 where buyer_rating is not an offer field the service knows'),
    ]);
  });

  it('leaves operations without an answer class alone', () => {
    checker.check(OPERATIONS.listActiveOfferRequests, [{ anything: true }]);
    expect(warnings).toEqual([]);
  });
});

import type { Offer } from '../../cash-offer/schema';
import { expiryWords, offerTaskText } from './offer-task.text';

const offer = {
  offer_id: 7012,
  offer_request_id: 88,
  offer_amount: 250000,
  buyer_pays_buyer_broker_commission: false,
  buyer_pays_listing_broker_commission: false,
  buyer_broker_commission_pct: 2,
  listing_broker_commission_pct: 3,
  created_at: '2026-11-24T10:00:00Z',
  offer_expires: '2026-11-26T14:00:00Z',
  offer_status: 'active',
  earnest_money: 5000,
  em_hard_post_inspection: true,
  lease_back: false,
  lease_back_period: 0,
  flexible_closing: true,
  post_possession: false,
  post_possession_period: 0,
  waive_warranty: false,
  inspection_period: 10,
  offer_memo: 'Can close in 14 days',
} as Offer;

describe('offerTaskText', () => {
  it("tells the agent the offer, the seller's net, the terms and the expiry", () => {
    expect(offerTaskText(offer, 'agent', '24h')).toEqual({
      subject: 'Decide on cash offer 7012 ($250,000): expires in 24h',
      body: [
        'A cash offer of $250,000 on request 88 expires Thu 26 Nov 2026, 14:00 UTC. Accept, reject or counter it by moving its offer record; once it expires the seller loses it.',
        '',
        'Seller nets: $237,500 before other closing costs',
        'Earnest money: $5,000 (hard after inspection)',
        'Inspection period: 10 days',
        'Flexible closing',
        "Buyer's note: Can close in 14 days",
      ].join('\n'),
    });
  });

  it('tells the broker the offer is still undecided', () => {
    expect(offerTaskText(offer, 'broker', '1h').subject).toBe(
      'Undecided cash offer 7012 ($250,000) expires in 1h',
    );
  });

  it('keeps an expiry it cannot read as the service wrote it', () => {
    expect(expiryWords('soon')).toBe('soon');
  });
});

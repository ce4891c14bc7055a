import type { Offer } from '../../cash-offer/schema';
import { OfferSummaries } from './offer-summary';

const offer = (offer_id: number, offer_amount: number, offer_status: string, offer_request_id = 7): Offer =>
  ({ offer_id, offer_amount, offer_status, offer_request_id }) as Offer;

describe('OfferSummaries', () => {
  it('counts every offer and shows the highest one still open', () => {
    const summaries = new OfferSummaries();
    [
      offer(1, 300_000, 'active'),
      offer(2, 450_000, 'rejected'),
      offer(3, 320_000, 'countered'),
      offer(4, 1, 'active', 8),
    ].forEach((o) => summaries.add(o));
    expect(summaries.all()).toEqual([
      { requestId: 7, externalId: undefined, count: 3, best: 320_000, accepted: false },
      { requestId: 8, externalId: undefined, count: 1, best: 1, accepted: false },
    ]);
  });

  it('shows the accepted offer once there is one, in any order', () => {
    const summaries = new OfferSummaries();
    [offer(1, 500_000, 'active'), offer(2, 310_000, 'accepted'), offer(3, 520_000, 'rejected')].forEach((o) =>
      summaries.add(o),
    );
    expect(summaries.all()[0]).toMatchObject({ count: 3, best: 310_000, accepted: true });
  });
});

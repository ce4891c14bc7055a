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

  it('does not show an offer its buyer took back, whatever the service calls it, as the best', () => {
    const summaries = new OfferSummaries();
    [
      offer(1, 300_000, 'active'),
      offer(2, 450_000, 'withdrawn'),
      offer(3, 440_000, 'Cancelled'),
      offer(4, 430_000, 'declined'),
    ].forEach((o) => summaries.add(o));
    expect(summaries.all()[0]).toMatchObject({ count: 4, best: 300_000, accepted: false });
  });

  it('is as old as the oldest read it folds, and of unknown age when one read time is unknown', () => {
    const summaries = new OfferSummaries();
    summaries.add(offer(1, 300_000, 'active'), new Date('2026-03-01T12:00:02Z'));
    summaries.add(offer(2, 310_000, 'active'), new Date('2026-03-01T12:00:01Z'));
    summaries.add(offer(3, 320_000, 'active'), new Date('2026-03-01T12:00:03Z'));
    summaries.add(offer(4, 1, 'active', 8), new Date('2026-03-01T12:00:01Z'));
    summaries.add(offer(5, 1, 'active', 8));
    expect(summaries.all().map((s) => s.readAt)).toEqual([new Date('2026-03-01T12:00:01Z'), undefined]);
  });
});

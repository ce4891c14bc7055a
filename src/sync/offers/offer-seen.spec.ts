import type { Offer } from '../../cash-offer/schema';
import { offerOfSeen, offerSeenContent } from './offer-seen';

describe("offer-seen: an offer's first record's placeholder content", () => {
  const offer = {
    offer_id: 7002,
    offer_request_id: 1001,
    offer_amount: 415000,
    offer_status: 'active',
    offer_expires: '2026-12-02 15:40:16.123000+00',
    created_at: '2026-12-02 15:39:46.123000+00',
  } as unknown as Offer;

  it('keeps the request, amount, status and expiry, within a link content of 128 characters', () => {
    const content = offerSeenContent(offer);
    expect(content.length).toBeLessThanOrEqual(128);
    expect(offerOfSeen('7002', content)).toEqual({
      offer_id: 7002,
      offer_request_id: 1001,
      offer_amount: 415000,
      offer_status: 'active',
      offer_expires: '2026-12-02 15:40:16.123000+00',
    });
  });

  it('keeps only the request when the rest would not fit', () => {
    const content = offerSeenContent({ ...offer, offer_status: 'x'.repeat(100) });
    expect(content).toBe('{"r":1001}');
    expect(offerOfSeen('7002', content)).toMatchObject({
      offer_id: 7002,
      offer_request_id: 1001,
      offer_status: 'active',
    });
  });

  it('reads nothing from content that is not its own', () => {
    expect(offerOfSeen('7002', 'not json')).toBeUndefined();
    expect(offerOfSeen('7002', '{"a":1}')).toBeUndefined();
    expect(offerOfSeen('abc', '{"r":1001}')).toBeUndefined();
  });
});

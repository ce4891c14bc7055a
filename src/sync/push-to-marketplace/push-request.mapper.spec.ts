import { toPushRequest } from './push-request.mapper';

const NOW = new Date('2026-11-21T06:00:00.000Z');
const deal = (
  properties: Record<string, string | null>,
): { id: string; properties: Record<string, string | null> } => ({
  id: '17',
  properties,
});

describe('toPushRequest', () => {
  it('pushes without an expiration as null', () => {
    expect(toPushRequest(deal({ cash_offer_inventory_property_id: '90017' }), NOW)).toEqual({
      ok: true,
      expiration: null,
      body: { request: { inventory_property_id: 90017, expiration_date: null } },
    });
  });

  it('reads the expiration as ISO text or epoch milliseconds', () => {
    const iso = '2026-12-01T00:00:00.000Z';
    for (const stored of [iso, String(Date.parse(iso)), '2026-12-01T00:00:00Z']) {
      expect(
        toPushRequest(
          deal({ cash_offer_inventory_property_id: '5', cash_offer_marketplace_expiration: stored }),
          NOW,
        ),
      ).toEqual({
        ok: true,
        expiration: iso,
        body: { request: { inventory_property_id: 5, expiration_date: iso } },
      });
    }
  });

  it('explains a deal that has no inventory property id, a bad id, or a past or unreadable date', () => {
    expect(toPushRequest(deal({}), NOW)).toEqual({
      ok: false,
      problems: [
        'deal 17 has no Cash Offer inventory property id yet; request a cash offer on it before pushing it to the marketplace',
      ],
    });
    expect(
      toPushRequest(
        deal({
          cash_offer_inventory_property_id: '12.5',
          cash_offer_marketplace_expiration: '2026-01-01T00:00:00Z',
        }),
        NOW,
      ),
    ).toEqual({
      ok: false,
      problems: [
        'deal 17: inventory property id "12.5" is not a whole number',
        'deal 17: marketplace expiration 2026-01-01T00:00:00.000Z is in the past; pick a later date or clear it',
      ],
    });
    expect(
      toPushRequest(
        deal({ cash_offer_inventory_property_id: '5', cash_offer_marketplace_expiration: 'next week' }),
        NOW,
      ),
    ).toEqual({
      ok: false,
      problems: ['deal 17: marketplace expiration "next week" is not a date'],
    });
  });
});

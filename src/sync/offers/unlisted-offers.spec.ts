import { unlistedOfferOutcome } from './unlisted-offers';

const NOW = Date.parse('2026-03-10T12:00:00Z');

describe('unlistedOfferOutcome', () => {
  it('an active offer past its expiry that the service stopped listing is shown expired', () => {
    expect(unlistedOfferOutcome({ status: 'active', expires: '2026-03-10T11:59:59Z' }, NOW)).toBe('expired');
    expect(unlistedOfferOutcome({ status: 'active', expires: '2026-03-10T12:00:00Z' }, NOW)).toBe('expired');
    expect(unlistedOfferOutcome({ status: 'active', expires: '2026-03-10T07:00:00-05:00' }, NOW)).toBe(
      'expired',
    );
  });

  it('an active offer not yet past its expiry, or with none readable, is looked at again later', () => {
    expect(unlistedOfferOutcome({ status: 'active', expires: '2026-03-11T00:00:00Z' }, NOW)).toBe('wait');
    expect(unlistedOfferOutcome({ status: 'active', expires: null }, NOW)).toBe('wait');
    expect(unlistedOfferOutcome({ status: 'active', expires: 'soon' }, NOW)).toBe('wait');
  });

  it('reads the expiry as the CRM gives it back: epoch milliseconds, or a day that must be over', () => {
    expect(unlistedOfferOutcome({ status: 'active', expires: String(NOW - 1) }, NOW)).toBe('expired');
    expect(unlistedOfferOutcome({ status: 'active', expires: String(NOW + 1) }, NOW)).toBe('wait');
    expect(unlistedOfferOutcome({ status: 'active', expires: '2026-03-10' }, NOW)).toBe('wait');
    expect(unlistedOfferOutcome({ status: 'active', expires: '2026-03-09' }, NOW)).toBe('expired');
  });

  it('a decided offer keeps what its record shows', () => {
    for (const status of ['accepted', 'rejected', 'expired', 'countered', '', null, undefined])
      expect(unlistedOfferOutcome({ status, expires: '2026-03-01T00:00:00Z' }, NOW)).toBe('settled');
  });
});

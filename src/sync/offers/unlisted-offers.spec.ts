import { counterWordOf, unlistedOfferOutcome } from './unlisted-offers';

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

  describe('an offer our counter waited on', () => {
    const HOUR = 3600_000;
    const counter = (status: string, expiresMs: number | null | undefined = NOW - HOUR) => ({
      status,
      expiresMs,
    });
    const dayAhead = '2026-03-11T12:00:00Z';

    it("ended with the counter once the counter's expiry passed, its own still ahead (a lapse that ends the offer; targeted soak 1548001)", () => {
      for (const status of ['active', 'countered', 'counter_offered', 'rejected'])
        expect(unlistedOfferOutcome({ status, expires: dayAhead }, NOW, counter('pending'))).toBe(
          'counter-ended',
        );
    });

    it("ended with the counter once its own expiry passed, whatever the counter's", () => {
      expect(
        unlistedOfferOutcome(
          { status: 'active', expires: '2026-03-10T11:00:00Z' },
          NOW,
          counter('pending', NOW + HOUR),
        ),
      ).toBe('counter-ended');
      expect(
        unlistedOfferOutcome(
          { status: 'active', expires: '2026-03-10T11:00:00Z' },
          NOW,
          counter('pending', null),
          true,
        ),
      ).toBe('counter-ended');
    });

    it("waits while the counter's expiry is ahead, where it has none, or where this service lets no counter lapse", () => {
      expect(
        unlistedOfferOutcome({ status: 'active', expires: dayAhead }, NOW, counter('pending', NOW + HOUR)),
      ).toBe('wait');
      expect(
        unlistedOfferOutcome({ status: 'active', expires: dayAhead }, NOW, counter('pending', null)),
      ).toBe('wait');
      expect(unlistedOfferOutcome({ status: 'active', expires: dayAhead }, NOW, { status: 'pending' })).toBe(
        'wait',
      );
      expect(
        unlistedOfferOutcome({ status: 'active', expires: dayAhead }, NOW, counter('pending'), true),
      ).toBe('wait');
    });

    it('shows a counter already known to have lapsed (a reconcile of a lost answer), until the record does', () => {
      expect(unlistedOfferOutcome({ status: 'active', expires: dayAhead }, NOW, counter('expired'))).toBe(
        'counter-ended',
      );
      expect(
        unlistedOfferOutcome(
          { status: 'expired', expires: dayAhead, counterStatus: 'expired' },
          NOW,
          counter('expired'),
        ),
      ).toBe('settled');
      expect(
        unlistedOfferOutcome(
          { status: 'expired', expires: dayAhead, counterStatus: 'pending' },
          NOW,
          counter('pending'),
        ),
      ).toBe('counter-ended');
    });

    // An UPDATE applied after the offer ran out and dropped off the list (a 200-kill soak, seed
    // 20261233: the record kept `expired` for a counter its buyer had refused).
    it("shows a buyer's refusal known only after the offer ran out, until the record does", () => {
      const past = '2026-03-10T11:00:00Z';
      expect(
        unlistedOfferOutcome(
          { status: 'expired', expires: past, counterStatus: 'expired' },
          NOW,
          counter('rejected'),
        ),
      ).toBe('counter-ended');
      expect(
        unlistedOfferOutcome(
          { status: 'active', expires: past, counterStatus: 'pending' },
          NOW,
          counter('declined'),
        ),
      ).toBe('counter-ended');
      expect(
        unlistedOfferOutcome(
          { status: 'expired', expires: past, counterStatus: 'rejected' },
          NOW,
          counter('rejected'),
        ),
      ).toBe('settled');
      // Ended as a waiting counter is: once the offer's own expiry or the counter's has passed.
      expect(
        unlistedOfferOutcome(
          { status: 'countered', expires: dayAhead, counterStatus: 'pending' },
          NOW,
          counter('rejected'),
        ),
      ).toBe('counter-ended');
      // The seller's own decision keeps its word; an offer and a counter both ahead of their
      // expiries are waited for.
      expect(unlistedOfferOutcome({ status: 'rejected', expires: past }, NOW, counter('rejected'))).toBe(
        'settled',
      );
      expect(
        unlistedOfferOutcome({ status: 'active', expires: dayAhead }, NOW, counter('rejected', NOW + HOUR)),
      ).toBe('wait');
    });

    it("shows the counter ended with the buyer's refusal where known, else as lapsed", () => {
      expect(counterWordOf({ status: 'declined' })).toBe('declined');
      expect(counterWordOf({ status: 'expired' })).toBe('expired');
      expect(counterWordOf({ status: 'pending' })).toBe('expired');
      expect(counterWordOf({ status: 'accepted' })).toBe('expired');
    });

    it("leaves a buyer's known answer to what the record shows", () => {
      expect(unlistedOfferOutcome({ status: 'rejected', expires: dayAhead }, NOW, counter('rejected'))).toBe(
        'settled',
      );
      expect(unlistedOfferOutcome({ status: 'active', expires: dayAhead }, NOW, counter('accepted'))).toBe(
        'wait',
      );
      expect(unlistedOfferOutcome({ status: 'countered', expires: dayAhead }, NOW, counter('accepted'))).toBe(
        'settled',
      );
    });
  });
});

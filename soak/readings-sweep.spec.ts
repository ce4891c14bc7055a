import {
  DEFAULT_SPEC_READINGS,
  parseSpecReadings,
  type SpecReadingValues,
} from '../sandbox/cash-offer/spec-readings';
import { drawReadings, lapseCanBeSeen, refusalCanBeSeen } from './readings-sweep';
import { SoakRandom } from './soak-random';

describe('drawReadings', () => {
  it('draws a whole, valid combination, the same for the same seed', () => {
    const first = drawReadings(new SoakRandom(7));
    expect(drawReadings(new SoakRandom(7))).toEqual(first);
    expect(Object.keys(first).sort()).toEqual(Object.keys(DEFAULT_SPEC_READINGS).sort());
    expect(parseSpecReadings(first, 'drawn')).toEqual(first);
  });

  it('varies every reading across seeds, and never draws a refusal nobody can see', () => {
    const seen = new Map<string, Set<string>>();
    for (let seed = 1; seed <= 200; seed++) {
      const drawn = drawReadings(new SoakRandom(seed));
      expect(refusalCanBeSeen(drawn as SpecReadingValues)).toBe(true);
      expect(lapseCanBeSeen(drawn as SpecReadingValues)).toBe(true);
      expect(drawn.expiredOfferListedAs).not.toBe('rejected');
      expect(drawn.counterAfterSellerReject).toBe('ended');
      if (drawn.counteredOfferDecisions === 'as-listed') expect(drawn.counteredOfferListedAs).toBe('active');
      for (const [key, value] of Object.entries(drawn))
        seen.set(key, (seen.get(key) ?? new Set()).add(JSON.stringify(value)));
    }
    // Every reading varies but the one the sweep leaves to the e2e flows.
    for (const [key, values] of seen)
      expect([key, values.size > 1]).toEqual([key, key !== 'counterAfterSellerReject']);
  });
});

describe('refusalCanBeSeen', () => {
  const r = (
    counterRejectedCallback: string,
    counteredOfferListedAs: string,
    counterRejectedOfferListedAs: string,
  ): SpecReadingValues =>
    ({
      ...DEFAULT_SPEC_READINGS,
      counterRejectedCallback,
      counteredOfferListedAs,
      counterRejectedOfferListedAs,
    }) as SpecReadingValues;

  it.each([
    ['flat', 'rejected', 'countered', true],
    ['none', 'countered', 'rejected', true],
    ['none', 'active', 'rejected', true],
    ['none', 'countered', 'active', true],
    ['none', 'rejected', 'rejected', false],
    ['none', 'active', 'active', false],
    ['none', 'countered', 'countered', false],
    ['none', 'rejected', 'active', false],
  ])('UPDATE %s, listed %s while waiting, %s after the refusal: %s', (callback, waiting, after, seen) => {
    expect(refusalCanBeSeen(r(callback, waiting, after))).toBe(seen);
  });

  it('takes a service that delivers each event once for one that sends no UPDATE: a killed daemon misses it', () => {
    const once = (waiting: string, after: string) =>
      refusalCanBeSeen({ ...r('flat', waiting, after), eventDelivery: 'once' });
    expect(once('rejected', 'countered')).toBe(false);
    expect(once('active', 'active')).toBe(false);
    expect(once('countered', 'active')).toBe(true);
    expect(once('active', 'rejected')).toBe(true);
  });
});

describe('lapseCanBeSeen', () => {
  it.each([
    ['never', 'active', 'dropped', true],
    ['offer-reopened', 'countered', 'expired', true],
    ['offer-reopened', 'rejected', 'expired', true],
    ['offer-reopened', 'active', 'expired', false],
    ['offer-expired', 'active', 'expired', true],
    ['offer-expired', 'countered', 'active', true],
    ['offer-expired', 'active', 'active', false],
    ['offer-expired', 'countered', 'dropped', true],
  ])(
    'lapse %s, a countered offer listed %s, an expired one %s: %s',
    (counterLapse, counteredOfferListedAs, expiredOfferListedAs, seen) => {
      const readings = {
        ...DEFAULT_SPEC_READINGS,
        counterLapse,
        counteredOfferListedAs,
        expiredOfferListedAs,
      } as SpecReadingValues;
      expect(lapseCanBeSeen(readings)).toBe(seen);
    },
  );
});

import { formatOfferFigures, median } from './offer-figures';
import { secondsToDecision } from './offer-numbers';

describe('offer figures', () => {
  it('takes the median of decision times', () => {
    expect(median([])).toBeNull();
    expect(median([30, 10, 20])).toBe(20);
    expect(median([10, 20, 30, 41])).toBe(25);
  });

  it('reads a decision time only where the service dates both ends', () => {
    expect(secondsToDecision({ created_at: '2026-11-24T10:00:00Z', offer_decided_at: '2026-11-24T15:30:00Z' })).toBe(
      5.5 * 3600,
    );
    expect(secondsToDecision({ created_at: '2026-11-24T10:00:00Z', offer_decided_at: null })).toBeUndefined();
    expect(secondsToDecision({ created_at: 'soon', offer_decided_at: '2026-11-24T15:30:00Z' })).toBeUndefined();
    expect(
      secondsToDecision({ created_at: '2026-11-24T10:00:00Z', offer_decided_at: '2026-11-23T10:00:00Z' }),
    ).toBeUndefined();
  });

  it('says them in a line', () => {
    expect(
      formatOfferFigures({ decided: 12, medianDecisionSeconds: 5.5 * 3600, expiredUndecided: 1, countersOutstanding: 2 }),
    ).toBe('12 decided (median 5.5 h to decision), 1 expired undecided, 2 counters outstanding');
    expect(
      formatOfferFigures({ decided: 0, medianDecisionSeconds: null, expiredUndecided: 0, countersOutstanding: 0 }),
    ).toBe('0 decided, 0 expired undecided, 0 counters outstanding');
  });
});

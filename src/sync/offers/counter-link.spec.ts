import { listedAtSendOf } from './counter-link';

describe('listedAtSendOf: how the service listed a countered offer when the counter was sent', () => {
  it.each([
    // [listed now, habit seen on earlier counters, taken as listed at send]
    ['countered', undefined, 'countered'],
    ['active', undefined, 'active'],
    ['countered', 'rejected', 'countered'],
    ['active', 'countered', 'active'],
    // A later `rejected` may be the buyer's refusal: the habit tells.
    ['rejected', 'countered', 'countered'],
    ['rejected', 'active', 'active'],
    ['rejected', 'rejected', 'rejected'],
    // The first counter of a brokerage: nothing else to go by.
    ['rejected', undefined, 'rejected'],
    ['accepted', 'countered', 'countered'],
  ])('listed %s with habit %s: %s', (listedNow, habit, expected) => {
    expect(listedAtSendOf(listedNow, habit)).toBe(expected);
  });
});

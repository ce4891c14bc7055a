import { habitOf, refusalListingsApartFromLapses } from './counter-listing-habit';

const READINGS = ['countered', 'active', 'rejected'];
// `l` read at the send, `f` how the service listed the offer once its buyer's refusal was known.
const counters = (...reads: string[]) =>
  reads.map((read) => {
    const [l, f] = read.split('/');
    return { listedAtSend: l, ...(f ? { listedAfterRefusal: f } : {}) };
  });
const habit = (...reads: string[]) => habitOf(counters(...reads), READINGS);

describe('habitOf', () => {
  it.each([
    [[], undefined],
    [['rejected'], 'rejected'],
    [['active'], 'active'],
    // `countered` is read only while a counter waits: one read settles it.
    [['countered', 'active', 'active', 'rejected/rejected'], 'countered'],
    [['countered/countered'], 'countered'],
    // One buyer who refused within the send, on a service that lists a waiting counter's offer
    // `rejected` and puts a refused one back to `active` (readings sweep 1594 run 3), and the mirror:
    // the reads of counters that waited outweigh it before the refusal is known...
    [['rejected', 'rejected', 'active'], 'rejected'],
    [['active', 'active', 'rejected'], 'active'],
    // ...and once it is, a read equal to the listing after the refusal counts for nothing.
    [['rejected/active', 'active/active', 'active/active'], 'rejected'],
    [['active/rejected', 'rejected/rejected', 'rejected/rejected'], 'active'],
    // Unless every read is such: a service that lists a countered offer as it lists a refused one.
    [['active/active', 'active/active'], 'active'],
    [['rejected/rejected'], 'rejected'],
    // A read equal to how another counter's refused offer was listed counts for nothing either
    // (readings sweep 1613 run 1: a counter read `active` as its buyer accepted it, on a service
    // putting refused offers back to `active`, against one read `rejected` while it waited).
    [['active/active', 'active/active', 'active', 'rejected'], 'rejected'],
    // A tie goes to the earlier reading, the safe one: under `active` no listing proves a counter absent.
    [['active', 'rejected'], 'active'],
    // A word none of the readings is (a read of `expired`) is not counted.
    [['expired', 'expired', 'rejected'], 'rejected'],
  ])('reads %j as %s', (reads, expected) => {
    expect(habit(...reads)).toBe(expected);
  });
});

describe('refusalListingsApartFromLapses', () => {
  // `status/f`, with `*` where the end was read past the counter's expiry.
  const ended = (...ends: string[]) =>
    ends.map((end) => {
      const [status, listed] = end.replace('*', '').split('/');
      return { status, listedAfterRefusal: listed, ...(end.endsWith('*') ? { endedPastExpiry: true } : {}) };
    });
  it.each([
    [[], []],
    // Refusals seen, no lapse: nothing tells them apart yet.
    [['rejected/rejected'], []],
    // A lapse listed as refusals are: no telling either.
    [['rejected/rejected', 'expired/rejected*'], []],
    // Each seen its own way: the refusals' listing tells.
    [['rejected/rejected', 'expired/active*'], ['rejected']],
    [['declined/rejected', 'expired/active*'], ['rejected']],
    // An offer listed `expired` may have run out on its own clock: no lapse's listing.
    [['declined/active', 'expired/expired*'], []],
    // A refusal read past the expiry may have been a lapse: it tells nothing of refusals.
    [['rejected/rejected*', 'expired/active*'], []],
    // An UPDATE's refusal (read whenever) and the cascade count as refusals.
    [
      ['rejected/active', 'rejected/rejected', 'expired/reopened*'],
      ['active', 'rejected'],
    ],
  ])('%j: %j', (ends, expected) => {
    expect([...refusalListingsApartFromLapses(ended(...ends))].sort()).toEqual(expected);
  });
});

import { answeredCounterOf } from './counter-offer.executor';

// A counter whose answer a kill cut: the buyer's UPDATE callback, kept in the inbox, tells that it
// arrived, whatever the offer list says by the time the reconcile reads it.
describe('answeredCounterOf: the buyer answered our counter, so it arrived', () => {
  const ours = { offerId: 7144, requestId: 1068 };
  const none = new Set<string>();

  it.each([
    [
      'names the countered offer',
      { offerId: 7144, counterId: 9028, status: 'rejected' },
      { counter_offer_id: 9028, counter_offer_status: 'rejected' },
    ],
    [
      'names the offer only (no counter id, no status)',
      { offerId: 7144 },
      { counter_offer_status: 'rejected' },
    ],
    [
      'names only the request and a counter no other offer has',
      { requestId: 1068, counterId: 9028, status: 'declined' },
      { counter_offer_id: 9028, counter_offer_status: 'declined' },
    ],
  ])('an answer that %s is ours', (_case, update, expected) => {
    expect(answeredCounterOf(ours, [update], none)).toEqual(expected);
  });

  it.each([
    ['names another offer', { offerId: 7145, counterId: 9029, requestId: 1068 }],
    ['names another request', { requestId: 1069, counterId: 9029 }],
    ['names a counter the ledger links to another offer', { requestId: 1068, counterId: 9030 }],
    ['names the request and no counter', { requestId: 1068 }],
  ])('an answer that %s is not', (_case, update) => {
    expect(answeredCounterOf(ours, [update], new Set(['9030']))).toBeUndefined();
  });

  it('finds ours among others', () => {
    const updates = [
      { offerId: 7150, counterId: 9031 },
      { offerId: 7144, counterId: 9028, status: 'rejected' },
    ];
    expect(answeredCounterOf(ours, updates, none)).toEqual({
      counter_offer_id: 9028,
      counter_offer_status: 'rejected',
    });
  });
});

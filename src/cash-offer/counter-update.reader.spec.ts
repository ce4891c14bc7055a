import { readCounterUpdate } from './counter-update.reader';

describe('readCounterUpdate: the UPDATE callback, whose payload the spec does not show', () => {
  const ids = { counterId: 17, offerId: 5, requestId: 3 };

  it.each([
    [
      'flat',
      {
        event: 'UPDATE',
        counter_offer_id: 17,
        offer_id: 5,
        offer_request_id: 3,
        counter_offer_status: 'rejected',
      },
      { ...ids, status: 'rejected' },
    ],
    [
      'nested under counter_offer',
      {
        event: 'UPDATE',
        counter_offer: { counter_offer_id: 17, offer_id: 5, offer_request_id: 3, status: 'Rejected' },
      },
      { ...ids, status: 'rejected' },
    ],
    [
      'nested under data, its own id',
      { event: 'UPDATE', data: { id: 17, offer_id: 5, offer_request_id: 3 } },
      ids,
    ],
    [
      'ids written as strings',
      {
        event: 'UPDATE',
        counter_offer_id: '17',
        offer_id: '5',
        offer_request_id: '3',
        counter_offer_status: 'rejected',
      },
      { ...ids, status: 'rejected' },
    ],
    [
      'only the offer',
      { event: 'UPDATE', offer_id: 5, counter_offer_status: 'rejected' },
      { offerId: 5, status: 'rejected' },
    ],
  ])('%s', (_shape, payload, read) => {
    expect(readCounterUpdate(payload)).toEqual(read);
  });

  it.each([
    [{ counter_offer_id: '17a' }],
    [{ counter_offer_id: '-3' }],
    [{ counter_offer_id: 0 }],
    [{ counter_offer_id: '' }],
    [{ counter_offer_id: 1.5 }],
  ])('no id in %j', (payload) => {
    expect(readCounterUpdate({ event: 'UPDATE', ...payload }).counterId).toBeUndefined();
  });
});

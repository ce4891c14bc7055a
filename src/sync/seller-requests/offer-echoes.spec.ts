import { offerEchoOf } from './offer-echoes';

describe('offerEchoOf', () => {
  it('reads the request id and the echoed external id of a new_offer payload', () => {
    expect(
      offerEchoOf({
        event: 'new_offer',
        offer_id: 3,
        offer_request_id: 6,
        offer_request_external_id: '9001',
      }),
    ).toEqual({
      offer_request_id: 6,
      offer_request_external_id: '9001',
    });
  });

  it.each([
    [{ offer_request_id: 6 }],
    [{ offer_request_id: 6, offer_request_external_id: '' }],
    [{ offer_request_id: 6, offer_request_external_id: null }],
    [{ offer_request_id: '6', offer_request_external_id: '9001' }],
    [{ offer_request_id: 0, offer_request_external_id: '9001' }],
    [{ offer_request_id: 1.5, offer_request_external_id: '9001' }],
    [[]],
    [null],
    ['text'],
  ])('names nothing in %j', (payload) => {
    expect(offerEchoOf(payload)).toBeUndefined();
  });
});

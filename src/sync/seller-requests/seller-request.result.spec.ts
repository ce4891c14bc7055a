import { photosSentOf, toSellerRequestResult } from './seller-request.result';

const RECORD = {
  offer_request_id: 41,
  inventory_property_id: 9001,
  offer_request_status: 'in_review',
  offer_requested_at: '2026-03-01T10:00:00.000Z',
  requested_by_agent: 'aaaaaaaa-0000-4000-8000-000000000001',
};

describe('toSellerRequestResult', () => {
  it('keeps the record as ours answers it, whatever the status word', () => {
    expect(toSellerRequestResult(RECORD)).toEqual({
      offer_request_id: 41,
      inventory_property_id: 9001,
      offer_request_status: 'in_review',
      offer_requested_at: '2026-03-01T10:00:00.000Z',
    });
    for (const status of ['processing', 'active'])
      expect(toSellerRequestResult({ ...RECORD, offer_request_status: status }).offer_request_status).toBe(
        status,
      );
  });

  it('an answer with only the id, or no status, keeps what there is and leaves the rest out', () => {
    expect(toSellerRequestResult({ offer_request_id: 41 })).toEqual({ offer_request_id: 41 });
    const { offer_request_status: _status, ...noStatus } = RECORD;
    expect(toSellerRequestResult(noStatus)).not.toHaveProperty('offer_request_status');
    expect(toSellerRequestResult({ ...RECORD, offer_request_status: null })).not.toHaveProperty(
      'offer_request_status',
    );
  });

  it('reads a record nested under offer_request or data, and ids written as numeric strings', () => {
    expect(toSellerRequestResult({ offer_request: RECORD }).offer_request_id).toBe(41);
    expect(toSellerRequestResult({ data: { offer_request_id: '41' } })).toEqual({ offer_request_id: 41 });
    expect(toSellerRequestResult({ offer_request_id: '41', inventory_property_id: '9001' })).toEqual({
      offer_request_id: 41,
      inventory_property_id: 9001,
    });
  });

  it('no body, or nothing that reads as an id, leaves the id to be looked up', () => {
    for (const answer of [undefined, null, '', [], {}, { offer_request_id: 'abc' }, { offer_request_id: -3 }])
      expect(toSellerRequestResult(answer).offer_request_id).toBeUndefined();
    expect(toSellerRequestResult({ ...RECORD, offer_requested_at: 'yesterday' })).not.toHaveProperty(
      'offer_requested_at',
    );
  });
});

describe('photosSentOf (the photo count a create noted before it left)', () => {
  it('reads a whole count, and nothing from anything else', () => {
    expect(photosSentOf({ media_sent: 5 })).toEqual({ media_sent: 5 });
    expect(photosSentOf({ media_sent: 0 })).toEqual({ media_sent: 0 });
    for (const note of [
      null,
      undefined,
      {},
      { media_sent: '5' },
      { media_sent: -1 },
      { media_sent: 2.5 },
      [5],
    ])
      expect(photosSentOf(note)).toEqual({});
  });
});

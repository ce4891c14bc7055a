import { ActiveIndex } from './active.index';
import { StoredOfferRequest } from './sandbox.types';

const request = (id: number, asking: number, requestedAtMs: number): StoredOfferRequest =>
  ({ offer_request_id: id, offer_request_asking: asking, requestedAtMs }) as StoredOfferRequest;

describe('ActiveIndex', () => {
  const ids = (rs: StoredOfferRequest[]) => rs.map((r) => r.offer_request_id);

  it('pages every sort order, ties broken by id', () => {
    const index = new ActiveIndex();
    const rs = [request(1, 300, 10), request(2, 100, 30), request(3, 200, 20), request(4, 100, 30)];
    for (const r of rs) index.add(r);
    expect(ids(index.page('offer_requested_at', true, 0, 10))).toEqual([4, 2, 3, 1]);
    expect(ids(index.page('offer_requested_at', false, 1, 2))).toEqual([3, 2]);
    expect(ids(index.page('offer_request_asking', false, 0, 10))).toEqual([2, 4, 3, 1]);
    expect(ids(index.page('offer_request_id', true, 3, 10))).toEqual([1]);
    expect(index.page('offer_request_id', true, 4, 10)).toEqual([]);
  });

  it('removes and re-adds members without duplicates', () => {
    const index = new ActiveIndex();
    const a = request(1, 5, 1);
    const b = request(2, 5, 2);
    index.addMany([a, b]);
    index.add(a);
    expect(index.size).toBe(2);
    index.remove(a);
    expect(ids(index.page('offer_request_asking', false, 0, 10))).toEqual([2]);
    index.add(a);
    expect(ids(index.page('offer_requested_at', false, 0, 10))).toEqual([1, 2]);
    expect(index.has(a)).toBe(true);
  });
});

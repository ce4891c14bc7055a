import { outboxKey } from './outbox-key';

describe('outboxKey', () => {
  it('is the same for the same brokerage, record and operation', () => {
    expect(outboxKey('acme', 'deal:42', 'create_offer_request')).toBe(
      outboxKey('acme', 'deal:42', 'create_offer_request'),
    );
  });

  it('differs when any part differs, even if the joined text would collide', () => {
    const keys = new Set([
      outboxKey('acme', 'deal:42', 'create_offer_request'),
      outboxKey('acme', 'deal:42', 'update_offer_request'),
      outboxKey('acme', 'deal:43', 'create_offer_request'),
      outboxKey('other', 'deal:42', 'create_offer_request'),
      outboxKey('a:b', 'c', 'op'),
      outboxKey('a', 'b:c', 'op'),
    ]);
    expect(keys.size).toBe(6);
  });

  it('names the empty part', () => {
    expect(() => outboxKey('acme', ' ', 'create_offer_request')).toThrow('recordRef is empty');
  });
});

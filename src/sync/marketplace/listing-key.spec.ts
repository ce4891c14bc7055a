import type { ActiveOfferRequest } from '../../cash-offer/schema';
import { listingKey } from './listing-key';

const item = (request: Record<string, unknown>, property: Record<string, unknown>): ActiveOfferRequest => ({
  request: { offer_request_asking: 1, ...request },
  property,
  media: [],
});

describe('listingKey', () => {
  const address = {
    StreetNumber: '12',
    StreetName: 'Main St.',
    PostalCity: 'Dallas',
    StateOrProvince: 'TX',
    PostalCode: '75201',
  };

  it('prefers the request id, then the inventory property id, then inventory_hash, then the address', () => {
    expect(
      listingKey(
        item({ offer_request_id: 7, inventory_property_id: 9 }, { inventory_hash: 'h', ...address }),
      ),
    ).toEqual({ key: 'req:7', source: 'request' });
    expect(listingKey(item({ inventory_property_id: 9 }, { inventory_hash: 'h', ...address }))).toEqual({
      key: 'inv:9',
      source: 'inventory',
    });
    expect(listingKey(item({}, { inventory_hash: ' h1 ', ...address }))).toEqual({
      key: 'hash:h1',
      source: 'hash',
    });
    expect(listingKey(item({}, address))).toEqual({
      key: 'addr:12 main st|dallas|tx|75201',
      source: 'address',
    });
  });

  it('ignores ids that are not positive integers', () => {
    expect(listingKey(item({ offer_request_id: '7', inventory_property_id: 0 }, address))?.source).toBe(
      'address',
    );
  });

  it('has no key for a listing with nothing to identify it', () => {
    expect(listingKey(item({}, { StateOrProvince: 'TX' }))).toBeUndefined();
  });
});

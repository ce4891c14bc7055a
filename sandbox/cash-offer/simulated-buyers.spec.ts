import { ApiError } from './sandbox.errors';
import { SimulatedBuyer, prelimCounts } from './simulated-buyers';

const buyers: SimulatedBuyer[] = [
  {
    name: 'A',
    boxes: [
      { states: ['TX'], postalPrefixes: ['75'], maxPrice: 300_000 },
      { states: ['TX'], minBeds: 4 },
    ],
  },
  { name: 'B', boxes: [{ states: ['FL'] }] },
];

describe('prelimCounts', () => {
  const prelim = (inventory: object) => prelimCounts({ inventory }, buyers);

  it('counts matching buyers and boxes; unstated criteria do not exclude', () => {
    expect(prelim({ StateOrProvince: 'TX', PostalCode: '75201' })).toEqual({
      buyer_count: 1,
      buy_box_count: 2,
    });
    expect(
      prelim({ StateOrProvince: 'TX', PostalCode: '75201', ListPrice: 400_000, BedroomsTotal: 3 }),
    ).toEqual({
      buyer_count: 0,
      buy_box_count: 0,
    });
    expect(prelim({ StateOrProvince: 'FL', PostalCode: '33101' })).toEqual({
      buyer_count: 1,
      buy_box_count: 1,
    });
  });

  it('validates the inventory with the shared schema', () => {
    expect(() => prelim({ StateOrProvince: 'TX' })).toThrow(ApiError);
    expect(() => prelim({ StateOrProvince: 'TX', PostalCode: '75201', Pool: true })).toThrow(
      'inventory.Pool',
    );
  });
});

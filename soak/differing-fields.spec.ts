import { differingFields } from './crash-soak';

describe('differingFields (what a settle that times out says changed)', () => {
  it("names a deal's id and each property that changed, not the whole record", () => {
    const before = ['10015', { dealname: 'Cash offer 7005', dealstage: 'a', hs_lastmodifieddate: '1' }];
    const after = ['10015', { dealname: 'Cash offer 7005', dealstage: 'b', hs_lastmodifieddate: '2' }];
    expect(differingFields(before, after)).toBe(
      '"10015" (dealstage: "a" -> "b", hs_lastmodifieddate: "1" -> "2")',
    );
  });

  it('shows a property that came or went as null on its missing side', () => {
    expect(differingFields(['1', {}], ['1', { x: 'y' }])).toBe('"1" (x: null -> "y")');
  });

  it('shows a tuple whole, and an item that came or went against null', () => {
    expect(
      differingFields(['10038', 'offer:7002:lead:12m', false], ['10038', 'offer:7002:lead:12m', true]),
    ).toBe('"10038" (["10038","offer:7002:lead:12m",false] -> ["10038","offer:7002:lead:12m",true])');
    expect(differingFields(undefined, [92, 'done'])).toBe('92 (null -> [92,"done"])');
  });
});

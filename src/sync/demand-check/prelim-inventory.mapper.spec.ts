import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseMappingOverrides } from '../../crm/mapping/crm-field-mapping';
import { FIXTURE_CRM_KIND } from '../../crm/mapping/crm-field-mapping.testing';
import { prelimDealProperties, toPrelimInventory } from './prelim-inventory.mapper';

const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(join(__dirname, 'fixtures', name), 'utf8'));
type Deal = { id: string; properties: Record<string, string | null> };

describe('toPrelimInventory', () => {
  const mapping = parseMappingOverrides({}, FIXTURE_CRM_KIND);

  it('maps a listing deal to the prelim inventory, typed by the spec (golden fixture)', () => {
    expect(toPrelimInventory(fixture('deal.json') as Deal, mapping)).toEqual(fixture('deal.expected.json'));
  });

  it('reads only the prelim fields through the brokerage mapping', () => {
    const names = prelimDealProperties(parseMappingOverrides({ PostalCode: 'zip_code' }, FIXTURE_CRM_KIND));
    expect(names).toContain('zip_code');
    expect(names).not.toContain('listing_postal_code');
    expect(names).not.toContain('description');
  });

  it('names a missing state or postal code and a value that is not a number', () => {
    const deal = { id: '31', properties: { listing_bedrooms: 'three', listing_pool: 'maybe' } };
    expect(toPrelimInventory(deal, mapping)).toEqual({
      ok: false,
      problems: [
        'deal 31: BedroomsTotal (listing_bedrooms) is "three", not a number',
        'deal 31: PoolPrivateYN is "maybe", not yes or no',
        'deal 31 has no StateOrProvince; the demand check needs it',
        'deal 31 has no PostalCode; the demand check needs it',
      ],
    });
  });
});

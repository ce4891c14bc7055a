import { CASH_OFFER_CRM_SCHEMA } from '../crm-schema';
import { FOLLOWUPBOSS_MAPPING_DEFAULTS } from '../followupboss/followupboss-default-mapping';
import { HUBSPOT_DEFAULT_MAPPING, HUBSPOT_MAPPING_DEFAULTS } from '../hubspot/hubspot-default-mapping';
import { mergeFieldMapping, parseMappingOverrides } from './crm-field-mapping';
import {
  datePropertiesOf,
  listingPropertySpecs,
  withListingProperties,
} from '../../brokerages/listing-properties';

describe('CRM field mapping', () => {
  it('maps the fields a create needs, for every CRM', () => {
    for (const defaults of [HUBSPOT_MAPPING_DEFAULTS, FOLLOWUPBOSS_MAPPING_DEFAULTS]) {
      for (const field of [
        'StreetNumber',
        'StreetName',
        'PostalCity',
        'StateOrProvince',
        'PostalCode',
        'MlsStatus',
      ]) {
        expect(defaults.mapping[field]).toBeDefined();
      }
    }
    expect(HUBSPOT_DEFAULT_MAPPING.ListPrice).toEqual({ source: 'deal', properties: ['amount'] });
  });

  it("starts from the brokerage's own CRM's default", () => {
    expect(parseMappingOverrides(undefined, 'hubspot').ListPrice.properties).toEqual(['amount']);
    expect(parseMappingOverrides(undefined, 'followupboss').ListPrice.properties).toEqual(['price']);
    expect(parseMappingOverrides(undefined, 'followupboss').OwnerName.properties).toEqual([
      'firstName',
      'lastName',
    ]);
  });

  it('merges overrides and removes fields set to null', () => {
    const merged = mergeFieldMapping(
      {
        StreetName: { source: 'deal', properties: ['address_street'] },
        Notes: null,
        PostalCity: 'town',
      },
      HUBSPOT_MAPPING_DEFAULTS,
    );
    expect(merged.PostalCity).toEqual({ source: 'deal', properties: ['town'] });
    expect(merged.StreetName).toEqual({ source: 'deal', properties: ['address_street'] });
    expect(merged.Notes).toBeUndefined();
    expect(merged.PostalCode).toEqual(HUBSPOT_DEFAULT_MAPPING.PostalCode);
    expect(HUBSPOT_DEFAULT_MAPPING.PostalCity).toEqual({ source: 'deal', properties: ['listing_city'] });
  });

  it('refuses unknown spec fields and malformed property names, naming each', () => {
    expect(() =>
      mergeFieldMapping(
        {
          StreetNme: { source: 'deal', properties: ['x'] },
          City: { source: 'deal', properties: ['Bad Name'] },
        },
        HUBSPOT_MAPPING_DEFAULTS,
      ),
    ).toThrow(
      'HubSpot field mapping is invalid: "StreetNme" is not one of the spec\'s property fields; City: "Bad Name" is not a HubSpot property name (lowercase letters, digits and _)',
    );
  });

  it('derives typed listing properties for setup-crm, enums as dropdowns, built-ins excluded', () => {
    const specs = listingPropertySpecs(HUBSPOT_DEFAULT_MAPPING, HUBSPOT_MAPPING_DEFAULTS.builtIn);
    const byName = new Map(specs.map((s) => [s.name, s]));
    expect(byName.get('listing_bedrooms')?.type).toBe('number');
    expect(byName.get('listing_pool')?.type).toBe('bool');
    expect(byName.get('listing_mls_status')?.type).toBe('enumeration');
    expect(byName.get('listing_mls_status')?.options?.map((o) => o.value)).toContain('Active');
    expect(byName.has('amount')).toBe(false);
    expect(specs.filter((s) => s.name === 'listing_city')).toHaveLength(1);
  });

  it('adds listing properties to the cash-offer schema without duplicates', () => {
    const schema = withListingProperties(
      CASH_OFFER_CRM_SCHEMA,
      HUBSPOT_DEFAULT_MAPPING,
      HUBSPOT_MAPPING_DEFAULTS.builtIn,
    );
    const names = schema.properties.map((p) => `${p.kind}.${p.name}`);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toContain('deal.listing_street_name');
    expect(names).toContain('deal.cash_offer_request_id');
    expect(datePropertiesOf(schema).get('cash_offer_offer_expires')).toBe('datetime');
  });
});

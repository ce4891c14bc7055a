import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseMappingOverrides } from '../../crm/mapping/crm-field-mapping';
import { FIXTURE_CRM_KIND } from '../../crm/mapping/crm-field-mapping.testing';
import { mapDealToOfferRequest, type ListingDealInput } from './offer-request.mapper';

const FIXTURES = join(__dirname, '__fixtures__');
const read = (name: string): unknown => JSON.parse(readFileSync(join(FIXTURES, name), 'utf8'));

describe('mapDealToOfferRequest (golden fixtures)', () => {
  const mapping = parseMappingOverrides(undefined, FIXTURE_CRM_KIND);
  const cases = readdirSync(FIXTURES).filter((f) => f.endsWith('.input.json'));

  it('has fixtures', () => {
    expect(cases.length).toBeGreaterThanOrEqual(2);
  });

  it.each(cases)('%s', (file) => {
    const input = read(file) as Omit<ListingDealInput, 'mapping'>;
    const expected = read(file.replace('.input.json', '.expected.json'));
    expect(mapDealToOfferRequest({ ...input, mapping })).toEqual(expected);
  });

  it('marks the request and its property as a test record for a test-mode brokerage or a checked deal', () => {
    const deal = { id: '1', properties: { amount: '250000' } };
    expect(mapDealToOfferRequest({ deal, mapping }).body.request.test).toBeUndefined();
    const testMode = mapDealToOfferRequest({ deal, mapping, testMode: true }).body;
    expect([testMode.request.test, testMode.property.test]).toEqual([true, true]);
    const checked = mapDealToOfferRequest({
      deal: { id: '1', properties: { amount: '250000', cash_offer_test_record: 'true' } },
      mapping,
    }).body;
    expect([checked.request.test, checked.property.test]).toEqual([true, true]);
  });

  it('follows a brokerage override to another deal property and to the seller contact', () => {
    const custom = parseMappingOverrides(
      { ListPrice: 'acme_price', OwnerName: 'seller_contact:lastname' },
      FIXTURE_CRM_KIND,
    );
    const result = mapDealToOfferRequest({
      deal: { id: '1', properties: { acme_price: '200000', amount: '1' } },
      sellerContact: { id: '2', properties: { firstname: 'Pat', lastname: 'Morgan' } },
      mapping: custom,
    });
    expect(result.body.request.offer_request_asking).toBe(200000);
    expect(result.body.property.OwnerName).toBe('Morgan');
  });
});

describe('mapDealToOfferRequest: photos', () => {
  const mapping = parseMappingOverrides(undefined, FIXTURE_CRM_KIND);
  const photos = (n: number) => Array.from({ length: n }, (_, i) => `https://photos.example/${i}.jpg`);

  it('takes more photos than one call carries (the rest follow as media updates), each one checked', () => {
    const many = mapDealToOfferRequest({
      deal: { id: '1', properties: { amount: '250000', cash_offer_photo_urls: photos(60).join('\n') } },
      mapping,
    });
    expect(many.body.media).toHaveLength(60);
    expect(many.violations.filter((v) => v.field.startsWith('media'))).toEqual([]);
    const bad = [...photos(55), 'not-a-url'];
    const refused = mapDealToOfferRequest({
      deal: { id: '1', properties: { amount: '250000', cash_offer_photo_urls: bad.join('\n') } },
      mapping,
    });
    expect(refused.violations.filter((v) => v.field.startsWith('media')).map((v) => v.field)).toEqual([
      'media[55]',
    ]);
    expect(refused.violations.find((v) => v.field === 'media[55]')?.message).toContain('media[55]');
  });
});

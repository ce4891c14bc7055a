import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ActiveOfferRequest } from '../../cash-offer/schema';
import { CRM_ROLE } from '../../crm/crm-roles';
import { listingContentHash } from './listing-hash';
import { listingKey } from './listing-key';
import { toMarketplaceRecord } from './listing-record.mapper';

const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(join(__dirname, 'fixtures', name), 'utf8'));

describe('toMarketplaceRecord (golden fixtures)', () => {
  it.each(['buyer', 'minimal'])('maps the %s active-list item to the expected record', (name) => {
    const item = fixture(`active-item.${name}.json`) as ActiveOfferRequest;
    const key = listingKey(item)!;
    expect({ key, record: toMarketplaceRecord(item, key.key, { nameProperty: CRM_ROLE.name }) }).toEqual(
      fixture(`active-item.${name}.expected.json`),
    );
  });

  it('writes no display name unless the CRM has a name property', () => {
    const item = fixture('active-item.minimal.json') as ActiveOfferRequest;
    expect(toMarketplaceRecord(item, 'k').durable).not.toHaveProperty(CRM_ROLE.name);
  });

  it('leaves assumptions empty when the account is not a buyer (the list carries none)', () => {
    const item = fixture('active-item.buyer.json') as ActiveOfferRequest;
    delete item.assumptions;
    expect(toMarketplaceRecord(item, 'k').durable.cash_offer_listing_assumptions).toBeNull();
  });
});

describe('listingContentHash', () => {
  const item = fixture('active-item.buyer.json') as ActiveOfferRequest;
  const hashOf = (i: ActiveOfferRequest): string => {
    const r = toMarketplaceRecord(i, 'req:4711');
    return listingContentHash(r.durable, r.photoIds);
  };

  it('ignores the signature and expiry of photo links, which change on every read', () => {
    const resigned = structuredClone(item);
    resigned.media = item.media.map((u) => u.replace(/expires=\d+&sig=\w+/, 'expires=1790000600&sig=ZZZ'));
    expect(hashOf(resigned)).toBe(hashOf(item));
  });

  it('changes when a photo is added, a durable field changes, or property order alone does not', () => {
    const morePhotos = structuredClone(item);
    morePhotos.media.push('http://127.0.0.1:4010/media/m3xyz?expires=1&sig=C');
    const cheaper = structuredClone(item);
    cheaper.request.offer_request_asking = 300000;
    expect(hashOf(morePhotos)).not.toBe(hashOf(item));
    expect(hashOf(cheaper)).not.toBe(hashOf(item));
    const reordered = toMarketplaceRecord(item, 'req:4711');
    const reversed = Object.fromEntries(Object.entries(reordered.durable).reverse());
    expect(listingContentHash(reversed, reordered.photoIds)).toBe(hashOf(item));
  });
});

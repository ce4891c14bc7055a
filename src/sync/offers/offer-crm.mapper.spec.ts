import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { mapOfferToCrm, type OfferCrmInput } from './offer-crm.mapper';
import { offerEconomics } from './offer-economics';

const FIXTURES = join(__dirname, '__fixtures__');
const read = (name: string): unknown => JSON.parse(readFileSync(join(FIXTURES, name), 'utf8'));

describe('mapOfferToCrm (golden fixtures)', () => {
  const cases = readdirSync(FIXTURES).filter((f) => f.endsWith('.input.json'));

  it('has fixtures', () => {
    expect(cases.length).toBeGreaterThanOrEqual(3);
  });

  it.each(cases)('%s', (file) => {
    const expected = read(file.replace('.input.json', '.expected.json'));
    expect(mapOfferToCrm(read(file) as OfferCrmInput)).toEqual(expected);
  });
});

describe('mapOfferToCrm with the counters of the other offers', () => {
  const base = (read('accepted-counter.input.json') as OfferCrmInput).offer;
  const countered = { ...base, offer_id: 41, offer_status: 'rejected', offer_is_counter_offer: false };
  const accepted = { ...base, offer_id: 44, offer_status: 'accepted', counter_offer_id: 55 };
  // Our counter on 41 was answered with no body (no id) and its amount is not known; the accepted
  // offer names counter 55, which the ledger links to another offer of the request.
  const input: OfferCrmInput = {
    offer: countered,
    requestOffers: [countered, accepted],
    counter: { status: 'pending' },
  };

  it("does not take another offer's accepted counter for ours: ours fell in the cascade", () => {
    const record = mapOfferToCrm({ ...input, otherCounters: { ids: new Set(['55']), unnamed: 0 } });
    expect([record.stage, record.properties.cash_offer_counter_status]).toEqual([
      'counter_rejected',
      'rejected',
    ]);
  });

  it('takes it for ours when no other counter on the request could have made it', () => {
    const record = mapOfferToCrm({ ...input, otherCounters: { ids: new Set(), unnamed: 0 } });
    expect([record.stage, record.properties.cash_offer_counter_status]).toEqual(['countered', 'accepted']);
  });
});

describe('offerEconomics (the spec commission arithmetic)', () => {
  const base = {
    offer_amount: 200_000,
    buyer_broker_commission_pct: 3,
    listing_broker_commission_pct: 2.5,
  };

  it('seller pays both: net = amount - amount x 3% - amount x listing %', () => {
    const money = offerEconomics({
      ...base,
      buyer_pays_buyer_broker_commission: false,
      buyer_pays_listing_broker_commission: false,
    });
    expect(money).toEqual({
      buyerBrokerCommissionAmt: 6000,
      listingBrokerCommissionAmt: 5000,
      sellerNet: 189_000,
      buyerCost: 200_000,
    });
  });

  it('buyer pays both: cost = amount x (1 + 3% + listing %)', () => {
    const money = offerEconomics({
      ...base,
      buyer_pays_buyer_broker_commission: true,
      buyer_pays_listing_broker_commission: true,
    });
    expect(money.buyerCost).toBe(211_000);
    expect(money.sellerNet).toBe(200_000);
  });

  it('prefers the amounts the service lists and rounds to cents', () => {
    const money = offerEconomics({
      ...base,
      offer_amount: 123_457,
      buyer_pays_buyer_broker_commission: false,
      buyer_pays_listing_broker_commission: false,
      listing_broker_commission_amt: 3000,
    });
    expect(money.buyerBrokerCommissionAmt).toBe(3703.71);
    expect(money.sellerNet).toBe(116_753.29);
  });
});

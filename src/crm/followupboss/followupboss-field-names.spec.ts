import { fubFieldLabel, fubFieldName } from './followupboss-field-names';

describe('FUB field names', () => {
  it('turns snake_case port names into the customXxx names FUB derives from labels', () => {
    expect(fubFieldName('cash_offer_request_id')).toBe('customCashOfferRequestId');
    expect(fubFieldLabel('cash_offer_request_id')).toBe('Cash Offer Request Id');
    expect(fubFieldName('listing_lot_size_sqft')).toBe('customListingLotSizeSqft');
  });

  it("leaves FUB's own fields alone", () => {
    expect(fubFieldName('price')).toBe('price');
    expect(fubFieldName('firstName')).toBe('firstName');
  });
});

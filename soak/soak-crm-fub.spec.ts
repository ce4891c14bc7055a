import { fubFieldName, portFieldName } from './soak-crm-fub';

// FUB names a custom field after its label: "Cash Offer Offer Id" is customCashOfferOfferId
// (docs/crm-followupboss.md, "Mapping, field by field").
describe('the soak agent’s FUB field names', () => {
  it.each([
    ['cash_offer_offer_id', 'customCashOfferOfferId'],
    ['cash_offer_counter_status', 'customCashOfferCounterStatus'],
    ['listing_street_number', 'customListingStreetNumber'],
  ])('%s is %s and back', (port, fub) => {
    expect(fubFieldName(port)).toBe(fub);
    expect(portFieldName(fub)).toBe(port);
  });
});

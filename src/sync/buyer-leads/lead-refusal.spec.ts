import { CashOfferError } from '../../cash-offer';
import { leadRefusal } from './lead-refusal';

const refused = (message: string) =>
  new CashOfferError({ code: 'INVALID_RECORD', operation: 'POST /buyer/lead', status: 400, message });

describe('leadRefusal', () => {
  it.each([
    ['primary_phone is required', ["primary_phone is the contact's phone"]],
    [
      "must have required property 'primary_email'; first_name must be shorter",
      ["first_name is the contact's first name", "primary_email is the contact's email"],
    ],
    [
      'property_address.inventory_property_id is required',
      [
        "inventory_property_id is the listing's inventory property id, which the Cash Offer service has not given for this listing (nothing on the contact supplies it)",
      ],
    ],
  ])('names where the agent fixes each field the service names: %s', (message, where) => {
    expect(leadRefusal('req:7', refused(message))).toBe(
      `The Cash Offer service refused this buyer lead on listing req:7: ${message}. Where to fix it: ${where.join('; ')}. It is sent again when the contact is changed.`,
    );
  });

  it('a refusal naming no lead field is told as the service said it', () => {
    expect(leadRefusal('req:7', refused('offer request 7 is expired'))).toBe(
      'The Cash Offer service refused this buyer lead on listing req:7: offer request 7 is expired. It is sent again when the contact is changed.',
    );
  });
});

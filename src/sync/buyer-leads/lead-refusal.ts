import { fieldsNamed } from '../../cash-offer/fields-named';
import type { RemoteError } from '../../common/remote-error';

// Which lead fields the service requires is not shown (docs/spec-decisions.md): a refusal may name
// any of them. Each, in the agent's words: where on the contact it comes from, or why the contact
// cannot supply it.
const WHERE_LEAD_FIELD_COMES_FROM: Record<string, string> = {
  first_name: "the contact's first name",
  last_name: "the contact's last name",
  primary_email: "the contact's email",
  primary_phone: "the contact's phone",
  inventory_property_id:
    "the listing's inventory property id, which the Cash Offer service has not given for this listing (nothing on the contact supplies it)",
  offer_request_id: "the listing's offer request id",
};

// What the contact shows when the service refuses its lead. The lead is sent again once the contact
// changes what it sends (buyer-leads.consumer.ts), never while it sends the same.
export function leadRefusal(listingKey: string, error: RemoteError): string {
  const where = fieldsNamed(error.message, Object.keys(WHERE_LEAD_FIELD_COMES_FROM)).map(
    (field) => `${field} is ${WHERE_LEAD_FIELD_COMES_FROM[field]}`,
  );
  const fix = where.length > 0 ? ` Where to fix it: ${where.join('; ')}.` : '';
  return `The Cash Offer service refused this buyer lead on listing ${listingKey}: ${error.message}.${fix} It is sent again when the contact is changed.`;
}

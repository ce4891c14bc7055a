import type { BuyerLeadBody } from '../../cash-offer/schema';
import type { CrmProperties } from '../../crm/crm.types';
import { UNIQUE_LISTING_KEY } from '../../crm/crm-schema';
import { NO_LONGER_LISTED_STATUS } from '../marketplace/marketplace.constants';
import { CONTACT_FIELDS } from './buyer-lead.constants';

export interface BuyerLeadInput {
  contact: { id: string; properties: CrmProperties };
  listing: { id: string; properties: CrmProperties };
}

export type BuyerLeadMapping =
  { ok: true; listingKey: string; body: BuyerLeadBody } | { ok: false; problems: string[] };

// A buyer contact + the marketplace deal it is associated with -> the POST /buyer/lead body.
// Problems name the contact, the listing and the field in an agent's words.
export function toBuyerLead({ contact, listing }: BuyerLeadInput): BuyerLeadMapping {
  const c = contact.properties;
  const l = listing.properties;
  const listingKey = text(l[UNIQUE_LISTING_KEY]);
  const place = text(l.cash_offer_listing_address) ?? listingKey ?? `deal ${listing.id}`;
  const problems: string[] = [];
  const firstName = text(c[CONTACT_FIELDS.firstName]);
  const lastName = text(c[CONTACT_FIELDS.lastName]);
  const email = text(c[CONTACT_FIELDS.email]);
  const phone = text(c[CONTACT_FIELDS.phone]);
  const requestId = integer(l.cash_offer_listing_request_id);
  const propertyId = integer(l.cash_offer_listing_inventory_id);
  if (!listingKey) problems.push(`deal ${listing.id} is not a marketplace listing`);
  if (!firstName) problems.push(`contact ${contact.id} has no first name; a buyer lead needs one`);
  if (!lastName) problems.push(`contact ${contact.id} has no last name; a buyer lead needs one`);
  if (!email && !phone)
    problems.push(`contact ${contact.id} has neither an email nor a phone; a buyer lead needs one of them`);
  if (requestId === undefined)
    problems.push(
      `the marketplace listing ${place} carries no offer request id, so a lead cannot name it ` +
        "(the Cash Offer service's active list gave none for it; nothing on the contact can supply it)",
    );
  if (text(l.cash_offer_listing_status) === NO_LONGER_LISTED_STATUS)
    problems.push(
      `the marketplace listing ${place} is no longer listed; leads are taken only on active listings`,
    );
  if (problems.length > 0 || !listingKey || !firstName || !lastName || requestId === undefined)
    return { ok: false, problems };
  const body: BuyerLeadBody = {
    first_name: firstName,
    last_name: lastName,
    ...(email ? { primary_email: email } : {}),
    ...(phone ? { primary_phone: phone } : {}),
    property_address: {
      offer_request_id: requestId,
      ...(propertyId !== undefined ? { inventory_property_id: propertyId } : {}),
    },
  };
  return { ok: true, listingKey, body };
}

function text(value: string | null | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

function integer(value: string | null | undefined): number | undefined {
  const n = Number(text(value));
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

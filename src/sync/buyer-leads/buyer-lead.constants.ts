import { CRM_ROLE } from '../../crm/crm-roles';
import { UNIQUE_LISTING_KEY } from '../../crm/crm-schema';

export const SUBMIT_BUYER_LEAD = 'submit_buyer_lead';
export const BUYER_LEADS_STREAM = 'crm:contact:buyer-leads';

// The contact's own name and reach (roles every CRM fills), and the cash-offer flags.
export const CONTACT_FIELDS = {
  firstName: CRM_ROLE.firstName,
  lastName: CRM_ROLE.lastName,
  email: CRM_ROLE.email,
  phone: CRM_ROLE.phone,
} as const;
export const SUBMIT_FLAG = 'cash_offer_submit_lead';
export const LEAD_ID = 'cash_offer_lead_id';
export const LEAD_SUBMITTED_AT = 'cash_offer_lead_submitted_at';
export const LEAD_ERROR = 'cash_offer_lead_error';

export const CONTACT_PROPERTIES = [...Object.values(CONTACT_FIELDS), SUBMIT_FLAG, LEAD_ID, LEAD_ERROR];

// What a marketplace deal tells a lead about its listing.
export const LISTING_PROPERTIES = [
  UNIQUE_LISTING_KEY,
  'cash_offer_listing_request_id',
  'cash_offer_listing_inventory_id',
  'cash_offer_listing_status',
  'cash_offer_listing_address',
];

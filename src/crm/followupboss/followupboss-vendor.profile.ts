import type { CrmVendorProfile } from '../crm-roles';

// Follow Up Boss's part of the port's contract: a deal's `name` and `price`, a person's `name`.
// FUB sends every date as ISO-8601 already (crm-apis.md B1), so values pass through.
export const FOLLOWUPBOSS_VENDOR_PROFILE: CrmVendorProfile = {
  roles: {
    deal: { 'crm:name': 'name', 'crm:amount': 'price' },
    contact: {
      'crm:name': 'name',
      'crm:first_name': 'firstName',
      'crm:last_name': 'lastName',
      // FUB keeps lists of emails and phones; the adapter shows the first of each under these names.
      'crm:email': 'email',
      'crm:phone': 'phone',
    },
  },
};

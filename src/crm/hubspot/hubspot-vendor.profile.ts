import type { CrmVendorProfile } from '../crm-roles';

const EPOCH_MS = /^\d{10,}$/;

// HubSpot's part of the port's contract: its deal display name and amount, and its date and
// date-time properties (which it may hand back as epoch milliseconds) as ISO-8601 text.
export function hubSpotVendorProfile(
  dateProperties: ReadonlyMap<string, 'date' | 'datetime'>,
): CrmVendorProfile {
  return {
    roles: {
      deal: { 'crm:name': 'dealname', 'crm:amount': 'amount' },
      contact: {
        'crm:first_name': 'firstname',
        'crm:last_name': 'lastname',
        'crm:email': 'email',
        'crm:phone': 'phone',
      },
    },
    readValue: (_kind, property, value) => {
      const type = dateProperties.get(property);
      if (!type || value === null || !EPOCH_MS.test(value)) return value;
      const iso = new Date(Number(value)).toISOString();
      return type === 'date' ? iso.slice(0, 10) : iso;
    },
  };
}

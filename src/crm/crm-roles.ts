import type { CrmKind } from './crm.types';

// Fields every CRM has under a name of its own (HubSpot and Follow Up Boss call a deal's display
// name and amount differently). Flows read and write them under these role names; the adapter's
// profile says which of its fields plays each role. The `crm:` prefix can never be a real property.
export const CRM_ROLE = {
  // What the CRM shows as the record's title.
  name: 'crm:name',
  // The record's money figure (a deal's amount or price).
  amount: 'crm:amount',
  // A person's name and reach.
  firstName: 'crm:first_name',
  lastName: 'crm:last_name',
  email: 'crm:email',
  phone: 'crm:phone',
} as const;

export type CrmRole = (typeof CRM_ROLE)[keyof typeof CRM_ROLE];

export const CRM_ROLES: readonly CrmRole[] = Object.values(CRM_ROLE);

export function isCrmRole(name: string): name is CrmRole {
  return (CRM_ROLES as readonly string[]).includes(name);
}

// How one CRM fills the port's vendor-neutral contract.
export interface CrmVendorProfile {
  // The vendor field that plays each role, per record kind; a role a kind lacks is left out.
  roles: Partial<Record<CrmKind, Partial<Record<CrmRole, string>>>>;
  // Turns a value as the vendor sends it into the port's form (dates as ISO-8601 text).
  readValue?(kind: CrmKind, property: string, value: string | null): string | null;
}

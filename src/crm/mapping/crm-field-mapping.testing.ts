import type { CrmVendorKind } from './crm-mapping-defaults';

// The CRM whose default mapping the flows' golden fixtures were written against. Flow specs name it
// through this constant so the sync layer's text stays free of vendor names.
export const FIXTURE_CRM_KIND: CrmVendorKind = 'hubspot';

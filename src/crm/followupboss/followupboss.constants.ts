import type { CrmKind } from '../crm.types';

// FUB calls contacts "people"; their collections are keyed by the resource name.
export const FUB_RESOURCE: Record<CrmKind, 'deals' | 'people'> = { deal: 'deals', contact: 'people' };
export const FUB_CUSTOM_FIELDS: Record<CrmKind, 'dealCustomFields' | 'customFields'> = {
  deal: 'dealCustomFields',
  contact: 'customFields',
};
// The collection key of each custom-field list (crm-apis.md B6).
export const FUB_CUSTOM_FIELDS_KEY: Record<CrmKind, string> = {
  deal: 'dealCustomfields',
  contact: 'customfields',
};

// Documented limit: `limit` is at most 100 (crm-apis.md B4).
export const MAX_PAGE = 100;

// FUB has no deal-to-deal link; the adapter keeps an offer record's listing deal in this custom
// field of its own (created by ensureSchema), as comma-separated deal ids.
export const LINKED_DEALS_FIELD = 'cash_offer_linked_deals';

// A deal's own fields (not custom ones), as FUB's deals reference and clients show them
// (crm-apis.md B3, B6): what a deal property name without `_` or a `custom` prefix can be.
export const FUB_DEAL_FIELDS: ReadonlySet<string> = new Set([
  'id',
  'name',
  'stageId',
  'stageName',
  'pipelineId',
  'status',
  'price',
  'projectedCloseDate',
  'description',
  'commissionValue',
  'agentCommission',
  'teamCommission',
  'people',
  'users',
  'created',
  'updated',
]);

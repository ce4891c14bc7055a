// Names the marketplace mirror shares between its parts (ledger kind, cursor-free stream, stages).
export const MARKETPLACE_FLOW = 'marketplace';

// Ledger link kind: remote id = the listing key, CRM id = the marketplace deal.
export const MARKETPLACE_LINK_KIND = 'marketplace_listing';

export const MARKETPLACE_STAGE_ACTIVE = 'active';
export const MARKETPLACE_STAGE_GONE = 'no_longer_listed';

// Shown in cash_offer_listing_status once a listing has dropped out of a complete pass.
export const NO_LONGER_LISTED_STATUS = 'no_longer_listed';

// Part of every content hash: bump it when the mapping changes so the next pass rewrites every record.
export const MARKETPLACE_MAPPING_VERSION = 'm1';

// The service's largest page (docs/spec-decisions.md) and the largest CRM batch.
export const ACTIVE_PAGE_SIZE = 100;
export const CRM_BATCH_SIZE = 100;

// Ascending request ids: listings created during a pass land after the pages already read,
// so offset paging neither repeats nor skips them (the default sort is newest first).
export const ACTIVE_LIST_SORT = 'offer_request_id.asc';

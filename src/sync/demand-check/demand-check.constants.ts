export const DEMAND_CHECK_STREAM = 'crm:deal:demand-check';
export const DEMAND_FLAG = 'cash_offer_demand_check';
export const BUYER_COUNT = 'cash_offer_prelim_buyer_count';
export const BUY_BOX_COUNT = 'cash_offer_prelim_buy_box_count';
// Listing deals have one problem property; demand-check problems are prefixed so agents can tell.
export const SYNC_ERROR = 'cash_offer_sync_error';

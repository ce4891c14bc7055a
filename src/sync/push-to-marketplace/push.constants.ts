export const PUSH_TO_MARKETPLACE = 'push_to_marketplace';
export const PUSH_STREAM = 'crm:deal:push-to-marketplace';

export const PUSH_FLAG = 'cash_offer_push_to_marketplace';
export const PUSH_EXPIRATION = 'cash_offer_marketplace_expiration';
export const PUSH_RESULT = 'cash_offer_push_result';
export const INVENTORY_ID = 'cash_offer_inventory_property_id';

export const PUSH_PROPERTIES = [PUSH_FLAG, PUSH_EXPIRATION, PUSH_RESULT, INVENTORY_ID];

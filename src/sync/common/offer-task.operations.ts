// The offer clocks' outbox operations; here, below the flows, because the decision history names
// them too (their answer is the CRM's, not the service's).
export const CREATE_OFFER_TASK = 'create_offer_task';
export const COMPLETE_OFFER_TASK = 'complete_offer_task';

import { outboxKey } from '../../ledger';

export const DECIDE_OFFER = 'decide_offer';
export { COUNTER_OFFER_OPERATION as COUNTER_OFFER } from '../offers/counter-link';

// What a decision or counter command carries besides the service body: where to show the outcome.
export interface DecisionTarget {
  offerId: number;
  requestId: number;
  // The CRM offer record.
  recordId: string;
}

export interface DecideOfferPayload extends DecisionTarget {
  decision: 'accepted' | 'rejected';
}

// One decision and one counter per offer, ever: deciding twice finds the first command.
export function decisionKey(brokerageId: string, offerId: number, operation: string): string {
  return outboxKey(brokerageId, `offer:${offerId}`, operation);
}

import { outboxKey, type OutboxCommand } from '../../ledger';
import { offerRequestOrderingKey } from '../outbox/outbox.executors';
import { expiryMs } from '../common/expiry';

export { DECIDE_OFFER_OPERATION as DECIDE_OFFER } from '../offers/agent-held-stage';
export { COUNTER_OFFER_OPERATION as COUNTER_OFFER } from '../offers/counter-link';

// What a decision or counter command carries besides the service body: where to show the outcome.
export interface DecisionTarget {
  offerId: number;
  requestId: number;
  // The CRM offer record.
  recordId: string;
  // When the offer runs out, as the record showed it when the agent decided (absent on commands
  // queued before it was kept): a decision is sent ahead of the drain's backlog, the soonest first.
  expiresAt?: string;
}

// A decision reaches the service in time or not at all: past the offer's expiry the service refuses it.
export function decisionDeadline(command: { payload: unknown }): number | undefined {
  return expiryMs((command.payload as DecisionTarget).expiresAt) ?? undefined;
}

// A decision or counter goes to the service in order with every other write of its offer request
// (the drain's lanes, send-order.ts): an accept and the cascade it starts, a counter and a reject of
// another offer, never in hand together.
export function decisionOrderingKey(command: OutboxCommand): string {
  const { requestId } = command.payload as Partial<DecisionTarget>;
  return typeof requestId === 'number' ? offerRequestOrderingKey(requestId) : command.recordRef;
}

export interface DecideOfferPayload extends DecisionTarget {
  decision: 'accepted' | 'rejected';
}

// One decision and one counter per offer, ever: deciding twice finds the first command.
export function decisionKey(brokerageId: string, offerId: number, operation: string): string {
  return outboxKey(brokerageId, `offer:${offerId}`, operation);
}

import { outboxKey, type OutboxCommand, type OutboxRepository } from '../../ledger';
import { COUNTER_OFFER_OPERATION } from './counter-link';
import type { OfferStage } from './offer-record.properties';

// The outbox operation that accepts or rejects an offer (one command per offer).
export const DECIDE_OFFER_OPERATION = 'decide_offer';

export type AgentRequest =
  | { operation: typeof DECIDE_OFFER_OPERATION; decision: 'accepted' | 'rejected' }
  | { operation: typeof COUNTER_OFFER_OPERATION };

// What an agent asks for by moving an offer record to each "… requested" stage.
const REQUESTS: Partial<Record<OfferStage, AgentRequest>> = {
  accept_requested: { operation: DECIDE_OFFER_OPERATION, decision: 'accepted' },
  reject_requested: { operation: DECIDE_OFFER_OPERATION, decision: 'rejected' },
  counter_requested: { operation: COUNTER_OFFER_OPERATION },
};

export function agentRequestIn(stage: string | undefined): AgentRequest | undefined {
  return stage === undefined ? undefined : REQUESTS[stage as OfferStage];
}

export function sameRequest(a: AgentRequest, b: AgentRequest): boolean {
  if (a.operation !== b.operation) return false;
  return a.operation !== DECIDE_OFFER_OPERATION || a.decision === (b as typeof a).decision;
}

// The one command of that kind an offer can have (decisionKey, in the decisions flow).
export function agentRequestKey(brokerageId: string, offerId: string, request: AgentRequest): string {
  return outboxKey(brokerageId, `offer:${offerId}`, request.operation);
}

// Whether a record the agent put in a "… requested" stage still waits on that request: the decision
// consumer has not read the move yet (no command), refused it and left the record there to be fixed
// (a counter with a bad field), or its command is not answered yet, or the command on the offer is
// another decision the consumer has still to refuse. Until the request is answered, the record keeps
// the agent's stage (ARCHITECTURE.md rule 8); the answer's write-back places it.
export function agentRequestWaits(
  request: AgentRequest,
  command: Pick<OutboxCommand, 'state' | 'payload'> | null,
): boolean {
  if (!command) return true;
  if (command.state !== 'done' && command.state !== 'dead') return true;
  if (request.operation === DECIDE_OFFER_OPERATION)
    return (command.payload as { decision?: unknown } | null)?.decision !== request.decision;
  return false;
}

// Whether the seller's accept or reject of this offer may have taken effect at the service: its
// command was sent and not refused (a refused or never-sent decision is dead; a `failed` one was
// refused for now, nothing applied). The offer's listing may then be the seller's doing.
export async function sellerDecisionSent(
  outbox: Pick<OutboxRepository, 'findByKey'>,
  brokerageId: string,
  offerKey: string,
): Promise<boolean> {
  const command = await outbox.findByKey(
    agentRequestKey(brokerageId, offerKey, { operation: DECIDE_OFFER_OPERATION, decision: 'rejected' }),
  );
  return command !== null && ['sending', 'unknown', 'done'].includes(command.state);
}

// The stage a write went over, from the record's stage history (newest first): the change just
// before the write, when the write is still the newest change (a later one is someone's newer move,
// and stands) and that change came after the writer's read (`readStageId`; the one before it is what
// the writer saw). Undefined when nothing came in between.
export function stageWrittenOver(
  history: readonly { stageId: string }[],
  wroteStageId: string,
  readStageId: string | undefined,
): string | undefined {
  const [write, before] = history;
  if (write?.stageId !== wroteStageId || !before) return undefined;
  return before.stageId !== readStageId && before.stageId !== wroteStageId ? before.stageId : undefined;
}

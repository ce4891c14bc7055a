// What an offer record must show once the daemon has settled, derived from the service's facts
// alone. Written from docs/crm-mapping.md ("Offer → offer record", "What an agent does in the CRM")
// and the spec's offer status table, never from the daemon's own mapping: the soak is an outsider
// and checks the daemon against the documented rule, not against itself.

export type OfferStageKey =
  | 'incoming'
  | 'acceptRequested'
  | 'accepted'
  | 'rejectRequested'
  | 'rejected'
  | 'counterRequested'
  | 'countered'
  | 'counterRejected'
  | 'expired';

export type AgentMove = 'accept' | 'reject' | 'counter';

export interface OfferFacts {
  offerStatus: string; // the offer's offer_status at the service
  // The status of the counter offer the agent made on this offer, as the service lists it.
  counterStatus?: string;
  // This offer is the one the buyer made by accepting a counter (offer_is_counter_offer).
  fromAcceptedCounter?: boolean;
  // The agent's move on the record that the service neither carries out nor refused yet: the
  // "… requested" stage is kept until the service confirms or refuses the decision.
  pendingMove?: AgentMove;
}

export interface ExpectedOfferRecord {
  stage: OfferStageKey;
  offerStatus: string; // cash_offer_offer_status: offer_status as sent
  // cash_offer_counter_status; null where the docs prescribe nothing (the offer a buyer made by
  // accepting a counter names that counter's id, its counter status is not described).
  counterStatus: string | null;
}

const ENDED_COUNTER = new Set(['rejected', 'expired', 'withdrawn']);

const REQUESTED: Record<AgentMove, OfferStageKey> = {
  accept: 'acceptRequested',
  reject: 'rejectRequested',
  counter: 'counterRequested',
};

export function expectedOfferRecord(facts: OfferFacts): ExpectedOfferRecord {
  const counterStatus = facts.counterStatus ?? (facts.fromAcceptedCounter ? null : '');
  const shown = (stage: OfferStageKey): ExpectedOfferRecord => ({
    stage,
    offerStatus: facts.offerStatus,
    counterStatus,
  });
  if (facts.pendingMove) return shown(REQUESTED[facts.pendingMove]);
  // A counter the buyer rejected, one the service withdrew when another offer was accepted, or one
  // that ended unanswered (it lapsed at its expiry, or its offer was taken back): the agent's
  // counter came to nothing ("Counter rejected", docs/crm-mapping.md).
  if (ENDED_COUNTER.has(facts.counterStatus ?? '') && facts.offerStatus !== 'accepted')
    return shown('counterRejected');
  // "a counter the buyer accepted leaves the countered record in Countered (the new accepted offer
  // has its own record)", although the service rejects the original offer in the cascade.
  if (facts.counterStatus === 'accepted') return shown('countered');
  // A counter still waiting for the buyer: countered, whatever status the service lists the
  // original offer under meanwhile (the spec has no `countered` offer status).
  if (
    facts.counterStatus === 'pending' &&
    facts.offerStatus !== 'accepted' &&
    facts.offerStatus !== 'rejected'
  )
    return shown('countered');
  switch (facts.offerStatus) {
    case 'accepted':
      return shown('accepted');
    case 'rejected':
      return shown('rejected');
    // "expired → Expired": the offer writer places a new record there, the offer clocks move one
    // the agent left in Incoming (the soak's agent never moves an offer about to run out).
    case 'expired':
      return shown('expired');
    case 'countered':
      return shown('countered');
    default:
      // `active` or anything new: Incoming (an undecided offer never leaves the stage it was created in).
      return shown('incoming');
  }
}

import { Injectable } from '@nestjs/common';
import type { BrokerageCrm } from '../../brokerages/brokerage-crm';
import type { CashOfferClient } from '../../cash-offer';
import { CASH_OFFERS_PIPELINE, type CrmProperties } from '../../crm';
import type { OffersRead } from '../common/offer-pages';
import type { AgentRequest } from '../offers/agent-held-stage';
import { alreadyIn, HeldStages } from '../offers/held-stages.service';
import { OFFER, offerStageId } from '../offers/offer-record.properties';
import { OffersService } from '../offers/offers.service';
import { OutboxRepository, type OutboxCommand } from '../../ledger';
import { COUNTER_OFFER, DECIDE_OFFER, decisionKey, type DecisionTarget } from './decision.command';

// What a decision's outcome puts on its record.
export interface OutcomeShown {
  // The decision or counter command this is the outcome of.
  of: OutboxCommand;
  // The agent's request this outcome answers: the record leaves that request's stage, and no newer
  // one the agent has moved it to since (HeldStages.besides).
  answers: AgentRequest;
  // The service's refusal, or null.
  message: string | null;
  // The request's offers, when the caller has just read them.
  listed?: OffersRead;
  // The decision is over without the service carrying it out (a reject of an offer that ran out):
  // the record leaves the agent's requested stage for where the offer is, as after a refusal.
  concluded?: boolean;
}

// After a decision, a counter or a refusal: the request's offers re-read from the service (the
// cascade), and this record put in the stage the service's facts say (offerRecordView), with the
// message (or none). A service that does not show the decision yet (the offer still listed as
// active) leaves the agent's requested stage alone; a refusal shows where the offer really is.
// The stage is written in the offer records' turn, from a read no older than what the record shows
// (OffersService.applyOutcome): a decision's write-back that waited its turn never puts back a stage
// a newer answer (the buyer's, say) has moved the record on from, nor one the agent's newer request
// has (a reject of the offer whose counter this shows).
@Injectable()
export class OfferRecordOutcome {
  constructor(
    private readonly offers: OffersService,
    private readonly heldStages: HeldStages,
    private readonly outbox: OutboxRepository,
  ) {}

  async show(
    crm: BrokerageCrm,
    client: CashOfferClient,
    target: DecisionTarget,
    shown: OutcomeShown,
  ): Promise<void> {
    const { of, answers, message, listed, concluded = false } = shown;
    await this.offers.applyOutcome(crm, client, target, listed, async (record) => {
      // The Decision error is the latest decision's: an earlier one's outcome shown late (a counter's
      // write-back retried after the CRM failed it) leaves the message of the agent's accept the
      // service refused meanwhile (a full crash soak, seed 20261213: the accept's refusal was wiped
      // and the record said nothing of why it was not carried out).
      const error: CrmProperties = (await this.decidedSince(of, target.offerId))
        ? {}
        : { [OFFER.decisionError]: message };
      const moves = message !== null || concluded || !record?.stageOnCreateOnly;
      const offerKey = String(target.offerId);
      const { held, placed } =
        record && moves ? await this.heldStages.besides(crm, offerKey, target.recordId, answers) : {};
      const pipelineId = crm.stages.pipelineId(CASH_OFFERS_PIPELINE);
      const shownStage = record && moves && !held ? offerStageId(crm.stages, record.stage) : undefined;
      // A record already in its stage is not moved: nothing the agent did meanwhile is written over.
      const stageId = shownStage && !alreadyIn(placed, pipelineId, shownStage) ? shownStage : undefined;
      if (!stageId && Object.keys(error).length === 0) return;
      const [written] = await crm.port.updateRecords('deal', [
        {
          id: target.recordId,
          properties: error,
          ...(stageId ? { pipelineId, stageId, moveSentOnce: true } : {}),
        },
      ]);
      if (written && !written.ok) throw written.error;
      if (stageId)
        await this.heldStages.putBackOverwritten(crm, [
          { offerKey, recordId: target.recordId, stageId, stageIdRead: placed?.stageId, answered: answers },
        ]);
    });
  }

  // Whether the agent made another decision on the offer (a counter, an accept or a reject) after `of`.
  private async decidedSince(of: OutboxCommand, offerId: number): Promise<boolean> {
    const other = of.operation === COUNTER_OFFER ? DECIDE_OFFER : COUNTER_OFFER;
    const later = await this.outbox.findByKey(decisionKey(of.brokerageId, offerId, other));
    return later !== null && later.id > of.id;
  }
}

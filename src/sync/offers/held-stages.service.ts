import { Injectable } from '@nestjs/common';
import type { BrokerageCrm } from '../../brokerages/brokerage-crm';
import { CASH_OFFERS_PIPELINE, UNIQUE_OFFER_ID, type CrmRecord } from '../../crm';
import { OutboxRepository } from '../../ledger';
import {
  agentRequestIn,
  agentRequestKey,
  agentRequestWaits,
  sameRequest,
  type AgentRequest,
} from './agent-held-stage';
import type { OfferStage } from './offer-record.properties';

// Which offer records keep the "… requested" stage an agent put them in (agent-held-stage.ts), read
// from the CRM at the moment of a write: the move may not have been read by the decision consumer
// yet. Neither CRM offers a conditional write, so a move landing between this read and the write (or
// between a lost write and its retry) can still be overwritten: docs/crm-mapping.md.
@Injectable()
export class HeldStages {
  constructor(private readonly outbox: OutboxRepository) {}

  // Among the records of these offers, those whose agent's request waits, with their stage.
  async among(crm: BrokerageCrm, offerKeys: string[]): Promise<Map<string, OfferStage>> {
    const held = new Map<string, OfferStage>();
    if (offerKeys.length === 0) return held;
    const found = await crm.port.findByUniqueValues('deal', UNIQUE_OFFER_ID, offerKeys, [UNIQUE_OFFER_ID]);
    for (const record of found) {
      const key = record.properties[UNIQUE_OFFER_ID] ?? '';
      const stage = key ? await this.waiting(crm, key, record) : undefined;
      if (stage) held.set(key, stage);
    }
    return held;
  }

  // The stage of this offer's record when it holds another request of the agent than `answered`,
  // which still waits: a decision's outcome then writes its message, not its stage (the agent moved
  // the record on since, as by rejecting an offer whose counter this outcome shows).
  async besides(
    crm: BrokerageCrm,
    offerKey: string,
    recordId: string,
    answered: AgentRequest,
  ): Promise<OfferStage | undefined> {
    const [record] = await crm.port.getRecords('deal', [recordId], []);
    return record ? this.waiting(crm, offerKey, record, answered) : undefined;
  }

  private async waiting(
    crm: BrokerageCrm,
    offerKey: string,
    record: CrmRecord,
    answered?: AgentRequest,
  ): Promise<OfferStage | undefined> {
    const stage = crm.stages.resolve(record.pipelineId, record.stageId);
    if (stage?.pipelineKey !== CASH_OFFERS_PIPELINE) return undefined;
    const request = agentRequestIn(stage.stageKey);
    if (!request || (answered && sameRequest(request, answered))) return undefined;
    const command = await this.outbox.findByKey(agentRequestKey(crm.brokerageId, offerKey, request));
    return agentRequestWaits(request, command) ? (stage.stageKey as OfferStage) : undefined;
  }
}

import { Injectable, Logger } from '@nestjs/common';
import type { BrokerageCrm } from '../../brokerages/brokerage-crm';
import { CASH_OFFER_CRM_SCHEMA, CASH_OFFERS_PIPELINE, UNIQUE_OFFER_ID } from '../../crm';
import { OutboxRepository, RecordErrorRepository } from '../../ledger';
import { errorMessage } from '../common/job-counts';
import {
  agentRequestIn,
  agentRequestKey,
  agentRequestWaits,
  sameRequest,
  sellerDecisionSent,
  stageWrittenOver,
  type AgentRequest,
} from './agent-held-stage';
import type { OfferStage } from './offer-record.properties';

// The stages' names as setup-crm gives them, for messages an agent reads.
const STAGE_LABELS = new Map(
  CASH_OFFER_CRM_SCHEMA.pipelines
    .find((p) => p.key === CASH_OFFERS_PIPELINE)!
    .stages.map((stage) => [stage.key, stage.label]),
);

// Where a record was when a writer read it.
export interface PlacementRead {
  pipelineId?: string;
  stageId?: string;
}

// What a writer read of offer records before it wrote: the "… requested" stages it must keep, and
// where each record was (a record already in the stage to show is not moved, so no move of the
// agent's can be written over there; a move's history is read against it).
export interface HeldRead {
  held: Map<string, OfferStage>;
  placed: Map<string, PlacementRead>;
}

// Whether a record read so already stands in that stage: the write leaves its stage alone.
export function alreadyIn(read: PlacementRead | undefined, pipelineId: string, stageId: string): boolean {
  return read?.pipelineId === pipelineId && read.stageId === stageId;
}

// A stage a writer has just moved an offer record to, over the stage it read.
export interface StageMove {
  offerKey: string;
  recordId: string;
  stageId: string;
  stageIdRead: string | undefined;
  // The agent's request the write answers (a decision's outcome): its stage is left, not put back.
  answered?: AgentRequest;
}

// Which offer records keep the "… requested" stage an agent put them in (agent-held-stage.ts), read
// from the CRM at the moment of a write: the move may not have been read by the decision consumer
// yet. Neither CRM offers a conditional write, so a move landing between this read and the write
// would be overwritten; where the CRM keeps a stage history, the writer looks afterwards and puts such
// a move back (putBackOverwritten). docs/crm-mapping.md.
@Injectable()
export class HeldStages {
  private readonly logger = new Logger(HeldStages.name);

  constructor(
    private readonly outbox: OutboxRepository,
    private readonly recordErrors: RecordErrorRepository,
  ) {}

  // Whether the seller's accept or reject of this offer may have reached the service.
  sellerDecisionSent(brokerageId: string, offerKey: string): Promise<boolean> {
    return sellerDecisionSent(this.outbox, brokerageId, offerKey);
  }

  // Among the records of these offers, those whose agent's request waits, with their stage.
  async among(crm: BrokerageCrm, offerKeys: string[]): Promise<HeldRead> {
    const read: HeldRead = { held: new Map(), placed: new Map() };
    if (offerKeys.length === 0) return read;
    const found = await crm.port.findByUniqueValues('deal', UNIQUE_OFFER_ID, offerKeys, [UNIQUE_OFFER_ID]);
    for (const record of found) {
      const key = record.properties[UNIQUE_OFFER_ID] ?? '';
      if (!key) continue;
      read.placed.set(key, { pipelineId: record.pipelineId, stageId: record.stageId });
      const stage = await this.waiting(crm, key, record);
      if (stage) read.held.set(key, stage);
    }
    return read;
  }

  // The stage of this offer's record when it holds another request of the agent than `answered`,
  // which still waits: a decision's outcome then writes its message, not its stage (the agent moved
  // the record on since, as by rejecting an offer whose counter this outcome shows). With
  // where the record was read.
  async besides(
    crm: BrokerageCrm,
    offerKey: string,
    recordId: string,
    answered: AgentRequest,
  ): Promise<{ held?: OfferStage; placed?: PlacementRead }> {
    const [record] = await crm.port.getRecords('deal', [recordId], []);
    if (!record) return {};
    const held = await this.waiting(crm, offerKey, record, answered);
    return { ...(held ? { held } : {}), placed: { pipelineId: record.pipelineId, stageId: record.stageId } };
  }

  // After a write that moved these records: an agent's move into a "… requested" stage made between
  // the writer's read and its write, which the write went over, is put back while its request waits
  // (the decision consumer reads it from there). Before, such a move was lost: the reject was never
  // sent (targeted soak 1474005). Returns the stages put back, by offer key. Without a stage history
  // (the CRM keeps none), nothing can be seen and nothing is put back.
  async putBackOverwritten(crm: BrokerageCrm, moves: StageMove[]): Promise<Map<string, OfferStage>> {
    const putBack = new Map<string, OfferStage>();
    if (moves.length === 0) return putBack;
    // The records are written already: a history the CRM will not give now fails nothing, it only
    // leaves a move made meanwhile unseen, as on a CRM that keeps none.
    const histories = await crm.port.stageHistory(moves.map((m) => m.recordId)).catch((error: unknown) => {
      this.logger.warn(
        `${crm.brokerageId}: the stage history of ${moves.length} offer record(s) just moved could not be read (${errorMessage(error)}); an agent's move made at that moment would not be seen`,
      );
      return undefined;
    });
    if (!histories) return putBack;
    const pipelineId = crm.stages.pipelineId(CASH_OFFERS_PIPELINE);
    for (const move of moves) {
      const over = stageWrittenOver(histories.get(move.recordId) ?? [], move.stageId, move.stageIdRead);
      if (over === undefined) continue;
      const stage = await this.waiting(crm, move.offerKey, { pipelineId, stageId: over }, move.answered);
      if (!stage) continue;
      const [written] = await crm.port.updateRecords('deal', [
        { id: move.recordId, properties: {}, pipelineId, stageId: over, moveSentOnce: true },
      ]);
      if (written && !written.ok) {
        // Said where the agent and the operator look: the move is lost unless made again.
        const label = STAGE_LABELS.get(stage) ?? stage;
        const message = `offer ${move.offerKey}: the agent's move of CRM record ${move.recordId} to "${label}" came while the daemon was moving it, and could not be put back (${errorMessage(written.error)}); move the record to "${label}" again`;
        this.logger.error(`${crm.brokerageId}: ${message}`);
        await this.recordErrors.record({
          brokerageId: crm.brokerageId,
          recordKind: 'offer',
          recordRef: move.offerKey,
          message,
          code: written.error.code,
        });
        continue;
      }
      putBack.set(move.offerKey, stage);
      this.logger.warn(
        `${crm.brokerageId}: offer ${move.offerKey}: the agent moved CRM record ${move.recordId} to "${STAGE_LABELS.get(stage) ?? stage}" while the daemon was moving it; the agent's move is put back, for the decision consumer to read`,
      );
    }
    return putBack;
  }

  private async waiting(
    crm: BrokerageCrm,
    offerKey: string,
    placed: PlacementRead,
    answered?: AgentRequest,
  ): Promise<OfferStage | undefined> {
    const stage = crm.stages.resolve(placed.pipelineId, placed.stageId);
    if (stage?.pipelineKey !== CASH_OFFERS_PIPELINE) return undefined;
    const request = agentRequestIn(stage.stageKey);
    if (!request || (answered && sameRequest(request, answered))) return undefined;
    const command = await this.outbox.findByKey(agentRequestKey(crm.brokerageId, offerKey, request));
    return agentRequestWaits(request, command) ? (stage.stageKey as OfferStage) : undefined;
  }
}

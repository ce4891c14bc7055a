import { Injectable } from '@nestjs/common';
import { Clock } from '../../common/clock';
import type { BrokerageCrm } from '../../brokerages/brokerage-crm';
import { CASH_OFFERS_PIPELINE, type CrmRecord } from '../../crm';
import {
  didNothing,
  OutboxRepository,
  RecordErrorRepository,
  wasNotSent,
  type OutboxCommand,
} from '../../ledger';
import type { ChangeStream } from '../crm-changes/change-stream';
import { errorMessage } from '../common/job-counts';
import { RecordIssues } from '../common/record-issues';
import { DecisionHistoryRecorder } from '../history/decision-history.recorder';
import { ChangePagesConsumer, type ConsumedPage } from '../crm-changes/change-pages.consumer';
import { CrmChangeConsumer } from '../crm-changes/crm-change-consumer.decorator';
import { COUNTER_INPUT, OFFER, offerStageId } from '../offers/offer-record.properties';
import { closedWithoutSale, isAnsweredCounter, isCounteredWord, stageFor } from '../offers/offer-record.view';
import { agentRequestIn } from '../offers/agent-held-stage';
import { HeldStages } from '../offers/held-stages.service';
import { mapCounterFromCrm } from './counter-offer.mapper';
import { COUNTER_OFFER, DECIDE_OFFER, decisionKey, type DecisionTarget } from './decision.command';

export const OFFER_DECISIONS_STREAM = 'crm:deal:offer-decisions';
type Outcome = 'created' | 'unchanged' | 'failed';
type Requested = 'accept_requested' | 'reject_requested' | 'counter_requested';
const REQUESTED: Requested[] = ['accept_requested', 'reject_requested', 'counter_requested'];
const RECORD_PROPERTIES = [...Object.values(OFFER), ...Object.values(COUNTER_INPUT)];

function requestedStageOf(crm: BrokerageCrm, record: CrmRecord): Requested | undefined {
  const stage = crm.stages.resolve(record.pipelineId, record.stageId)?.stageKey as Requested | undefined;
  return stage && REQUESTED.includes(stage) ? stage : undefined;
}

// Flows 5 and 6: an agent moves an offer record to accept / reject / counter requested; the request
// goes through the outbox once per offer. What cannot be done is said on the record, never sent.
@Injectable()
@CrmChangeConsumer('offer-decisions')
export class OfferDecisionsConsumer extends ChangePagesConsumer {
  constructor(
    private readonly outbox: OutboxRepository,
    private readonly issues: RecordIssues,
    private readonly history: DecisionHistoryRecorder,
    private readonly recordErrors: RecordErrorRepository,
    private readonly clock: Clock,
    private readonly heldStages: HeldStages,
  ) {
    super();
  }

  stream(crm: BrokerageCrm): ChangeStream {
    return {
      stream: OFFER_DECISIONS_STREAM,
      kind: 'deal',
      properties: RECORD_PROPERTIES,
      filter: {
        pipelineId: crm.stages.pipelineId(CASH_OFFERS_PIPELINE),
        stageIds: REQUESTED.map((s) => crm.stages.stageId(CASH_OFFERS_PIPELINE, s)),
      },
    };
  }

  async consumePage({ records, crm, ctx, counts }: ConsumedPage): Promise<void> {
    const found = records.filter((r) => requestedStageOf(crm, r) !== undefined);
    if (found.length === 0) return;
    // A change read may be a search, which shows a write only after a lag (docs/crm-mapping.md):
    // each record it finds in a "… requested" stage is read again by id, and the move is taken from
    // that read. Before, a record the consumer had already moved on (a reject with nothing left to
    // do) was found still requested; each pass moved it again, and the search index, kept behind by
    // the writes, went on showing the old stage (a three-worker soak never settled). A stale image
    // could also have undone a newer move of the agent's.
    const current = new Map(
      (
        await crm.port.getRecords(
          'deal',
          found.map((r) => r.id),
          RECORD_PROPERTIES,
        )
      ).map((r) => [r.id, r]),
    );
    for (const { id } of found) {
      counts.read += 1;
      const record = current.get(id);
      const stage = record ? requestedStageOf(crm, record) : undefined;
      // Deleted, or moved on since: its new stage, if requested, comes as a change of its own.
      if (!record || !stage) {
        counts.unchanged += 1;
        continue;
      }
      const outcome = await this.handle(crm, record, stage, ctx.dryRun);
      counts[outcome] += 1;
    }
  }

  private async handle(
    crm: BrokerageCrm,
    record: CrmRecord,
    stage: Requested,
    dryRun: boolean,
  ): Promise<Outcome> {
    const offerId = Number(record.properties[OFFER.id]);
    const requestId = Number(record.properties[OFFER.requestRef]);
    if (!Number.isInteger(offerId) || !Number.isInteger(requestId)) {
      if (!dryRun)
        await this.refuse(
          crm,
          record,
          'This record has no Cash Offer offer id; only offer records the daemon created can be decided.',
        );
      return 'failed';
    }
    const expiresAt = record.properties[OFFER.expires];
    const target: DecisionTarget = {
      offerId,
      requestId,
      recordId: record.id,
      ...(expiresAt ? { expiresAt } : {}),
    };
    const status = record.properties[OFFER.status] ?? '';
    if (stage === 'counter_requested') return this.counter(crm, record, target, status, dryRun);
    const decision = stage === 'accept_requested' ? 'accepted' : 'rejected';
    const existing = await this.outbox.findByKey(decisionKey(crm.brokerageId, offerId, DECIDE_OFFER));
    // A decision the service refused did nothing there: the agent's move made since is a request of
    // its own, sent in its place (a reject after an accept refused while a counter waited). Before,
    // every later move was told "an earlier request on this offer was refused", for good.
    const replaces = existing !== null && movedSinceRefused(existing, record, decision) ? existing : null;
    if (existing && !replaces) return this.alreadyDecided(crm, record, existing, decision, dryRun);
    // A counter of ours that waits on its buyer leaves the offer the seller's to turn down, however
    // the service lists it meanwhile (`countered`, a word of its own, or already `rejected`). Whether
    // the seller may still accept it is not shown (a service may take the accept and end the counter
    // in the cascade): the service decides, and a refusal of it leaves the agent's next move free.
    const counterWaits = isWaitingCounter(record.properties[OFFER.counterStatus]);
    const open =
      decision === 'accepted'
        ? status === 'active' || counterWaits
        : status === 'active' || isCounteredWord(status) || counterWaits;
    if (!open && decision === 'rejected' && closedWithoutSale(status)) {
      // Nothing left to do: the service already closed the offer without a sale (the buyer refused
      // our counter and the service lists the offer rejected, another offer was accepted, it ran
      // out or its buyer took it back). What the agent wanted holds: the record goes where its
      // status says, with no error (a reject that reaches the service too late is done so too).
      if (!dryRun) await this.nothingToDo(crm, record);
      return 'unchanged';
    }
    if (!open) {
      if (!dryRun)
        await this.refuse(
          crm,
          record,
          `This offer is ${status || 'in an unknown state'} at the service; it can no longer be ${decision}. Nothing was sent.`,
        );
      return 'failed';
    }
    if (dryRun) return 'created';
    const move = decision === 'accepted' ? 'accept' : 'reject';
    if (replaces)
      return this.inPlaceOf(crm, record, replaces, { ...target, decision }, (command) =>
        this.history.agentMove({ brokerageId: crm.brokerageId, ...target, move, command }),
      );
    // The agent's move enters the decision history with its command, in the same transaction.
    await this.outbox.enqueue(
      {
        brokerageId: crm.brokerageId,
        idempotencyKey: decisionKey(crm.brokerageId, offerId, DECIDE_OFFER),
        operation: DECIDE_OFFER,
        recordRef: `deal:${record.id}`,
        payload: { ...target, decision },
      },
      (command) => this.history.agentMove({ brokerageId: crm.brokerageId, ...target, move, command }),
    );
    return 'created';
  }

  private async counter(
    crm: BrokerageCrm,
    record: CrmRecord,
    target: DecisionTarget,
    status: string,
    dryRun: boolean,
  ): Promise<Outcome> {
    const existing = await this.outbox.findByKey(decisionKey(crm.brokerageId, target.offerId, COUNTER_OFFER));
    // A counter refused before it left (its expiry passed while it waited) never reached the service:
    // the agent's new one takes its place. Before, the offer could never be countered again.
    const replaces = existing !== null && wasNotSent(existing) ? existing : null;
    if (existing && !replaces) return this.alreadyDecided(crm, record, existing, 'countered', dryRun);
    if (status !== 'active') {
      if (!dryRun)
        await this.refuse(
          crm,
          record,
          `This offer is ${status || 'in an unknown state'} at the service; only an active offer can be countered. Nothing was sent.`,
        );
      return 'failed';
    }
    const { body, violations } = mapCounterFromCrm(target.offerId, record.properties, {
      testMode: crm.testMode,
      nowMs: this.clock.nowMs(),
    });
    if (violations.length > 0) {
      // The record stays in "counter requested": fixing a field retries.
      if (!dryRun) {
        await this.issues.report(
          crm,
          record,
          OFFER.decisionError,
          violations.map((v) => ({ field: v.field, message: v.message, code: 'INVALID_RECORD' })),
        );
      }
      return 'failed';
    }
    if (dryRun) return 'created';
    const amount = body.counter_offer_amount;
    if (replaces)
      return this.inPlaceOf(crm, record, replaces, { ...target, body }, (command) =>
        this.history.agentMove({ brokerageId: crm.brokerageId, ...target, move: 'counter', command, amount }),
      );
    await this.outbox.enqueue(
      {
        brokerageId: crm.brokerageId,
        idempotencyKey: decisionKey(crm.brokerageId, target.offerId, COUNTER_OFFER),
        operation: COUNTER_OFFER,
        recordRef: `deal:${record.id}`,
        payload: { ...target, body },
      },
      (command) =>
        this.history.agentMove({ brokerageId: crm.brokerageId, ...target, move: 'counter', command, amount }),
    );
    return 'created';
  }

  // The agent's new request sent in place of the offer's dead command of its kind (the remote did
  // nothing with it), its history entry in the same transaction, and the old refusal cleared.
  private async inPlaceOf(
    crm: BrokerageCrm,
    record: CrmRecord,
    dead: OutboxCommand,
    payload: unknown,
    history: (command: OutboxCommand) => ReturnType<DecisionHistoryRecorder['agentMove']>,
  ): Promise<Outcome> {
    await this.outbox.rearm(dead, payload, history(dead));
    await this.issues.clear(crm, record, OFFER.decisionError);
    return 'created';
  }

  // One decision and one counter per offer: a second request gets a message, never a second call.
  // The same request read again (the record is read before its write-back has moved it, or a
  // stale read inside the change reader's overlap window) is the agent's own decision: nothing new.
  private async alreadyDecided(
    crm: BrokerageCrm,
    record: CrmRecord,
    command: OutboxCommand,
    requested: 'accepted' | 'rejected' | 'countered',
    dryRun: boolean,
  ): Promise<Outcome> {
    if (command.state !== 'done' && command.state !== 'dead') return 'unchanged';
    if (command.state === 'done' && decisionOf(command) === requested) return 'unchanged';
    if (dryRun) return 'failed';
    const what =
      command.operation === COUNTER_OFFER
        ? 'was already countered'
        : `was already ${(command.payload as { decision: string }).decision}`;
    const when = command.completedAt ? ` on ${command.completedAt.toISOString()}` : '';
    const message =
      command.state === 'done'
        ? `This offer ${what}${when}; a decision cannot be made twice. Nothing was sent.`
        : `An earlier request on this offer was refused (${command.lastError ?? 'see errors'}); nothing was sent again.`;
    await this.refuse(crm, record, message);
    return 'failed';
  }

  // The message on the record, and the record back in the stage its status says.
  private async refuse(crm: BrokerageCrm, record: CrmRecord, message: string): Promise<void> {
    await this.issues.report(crm, record, OFFER.decisionError, [{ message, code: 'CONFLICT' }]);
    await this.backToItsStage(crm, record, 'its request was refused');
  }

  private async nothingToDo(crm: BrokerageCrm, record: CrmRecord): Promise<void> {
    await this.issues.clear(crm, record, OFFER.decisionError);
    await this.backToItsStage(crm, record, 'its reject had nothing left to do');
  }

  private async backToItsStage(crm: BrokerageCrm, record: CrmRecord, why: string): Promise<void> {
    const stage = stageFor(
      record.properties[OFFER.status] ?? '',
      record.properties[OFFER.counterStatus] ?? undefined,
    );
    const stageId = offerStageId(crm.stages, stage);
    const [moved] = await crm.port.updateRecords('deal', [
      {
        id: record.id,
        properties: {},
        pipelineId: crm.stages.pipelineId(CASH_OFFERS_PIPELINE),
        stageId,
      },
    ]);
    // The agent may have moved the record on since it was read (changed their mind: a reject after
    // an accept the service refused): that move is put back for the next read (HeldStages).
    const offerKey = record.properties[OFFER.id];
    const answered = agentRequestIn(requestedStageOf(crm, record));
    if (moved?.ok && offerKey)
      await this.heldStages.putBackOverwritten(crm, [
        {
          offerKey,
          recordId: record.id,
          stageId,
          stageIdRead: record.stageId,
          ...(answered ? { answered } : {}),
        },
      ]);
    if (moved && !moved.ok) {
      // Kept for the operator, and the rest of the page goes on: thrown, one record the CRM will not
      // move (deleted meanwhile, or refused by a rule of its pipeline) held every later decision back
      // at the same cursor, run after run. Its own message already says nothing was sent.
      await this.recordErrors.record({
        brokerageId: crm.brokerageId,
        recordKind: 'deal',
        recordRef: record.id,
        field: 'stage',
        message: `deal ${record.id} could not be moved back to "${stage}" after ${why}: ${errorMessage(moved.error)}`,
        code: moved.error.code,
      });
    }
  }
}

// Whether the agent has made a move of their own since the refused decision, read by id in a
// "… requested" stage. One asking another decision than the refused one is always theirs: only the
// agent puts the record there (before, a CRM keeping whole seconds showed a reject made within the
// second of the accept's refusal as older, and it was told "an earlier request was refused" for good;
// the full crash soak on seed 20261205). The same decision again counts only when the record changed
// after the refusal (the CRM's time of the change against ours of the refusal): as it was before, it
// is the refused move itself. A CRM clock behind ours makes such a repeat wait for the agent's next
// move; one ahead of it may send the refused move once more, which the service refuses again.
function movedSinceRefused(command: OutboxCommand, record: CrmRecord, requested: string): boolean {
  if (!didNothing(command)) return false;
  if (decisionOf(command) !== requested) return true;
  const changedAt = Date.parse(record.updatedAt);
  return Number.isFinite(changedAt) && changedAt > command.updatedAt.getTime();
}

function decisionOf(command: OutboxCommand): string {
  return command.operation === COUNTER_OFFER
    ? 'countered'
    : String((command.payload as { decision?: string }).decision);
}

// A counter status the record shows for a counter sent and not yet answered (`pending`, or the
// service's own word for it).
function isWaitingCounter(status: string | null | undefined): boolean {
  return typeof status === 'string' && status !== '' && !isAnsweredCounter(status);
}

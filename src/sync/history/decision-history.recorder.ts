import { Injectable, Logger } from '@nestjs/common';
import type { Offer } from '../../cash-offer/schema';
import { HistoryRepository, OutboxRepository, type NewHistoryEntry, type OutboxCommand } from '../../ledger';
import { errorMessage } from '../common/job-counts';
import { COMPLETE_OFFER_TASK, CREATE_OFFER_TASK } from '../common/offer-task.operations';

const WRITE_BACK = 'write_back';
// The offer clocks' CRM tasks (their answer is the CRM's, not the service's).
const TASK_OPERATIONS = new Set([CREATE_OFFER_TASK, COMPLETE_OFFER_TASK]);

// How a command ended, in the drain's words: done, retried later, outcome unknown, given up.
export type CommandAnswer = 'done' | 'retry' | 'unknown' | 'dead';

// An offer record just written to the CRM, and what it shows.
export interface ShownOffer {
  offer: Offer;
  crmId: string;
  created: boolean;
  // The stage written; null where the record was left in the stage it was in (an undecided offer
  // only places a new record).
  stage: string | null;
  counterId: string | null;
  counterStatus: string | null;
}

// An offer record shown expired after its offer left the service's list (UnlistedOffers).
export interface UnlistedShown {
  offerId: string;
  crmId: string;
  // The stage written; null where the record was left in the stage it was in.
  stage: string | null;
  // The counter status written where the offer ended with our counter on it (the lapse, or its
  // buyer's refusal known late), else null.
  counterStatus: string | null;
}

// What the agent asked for by moving an offer record.
export interface AgentMove {
  brokerageId: string;
  offerId: number;
  requestId: number;
  recordId: string;
  move: 'accept' | 'reject' | 'counter';
  command: OutboxCommand;
  amount?: number;
}

// The decision history's writers: one line at each point of the flows where something changed.
// Entries carry ids, amounts and statuses only. A history write never fails the sync it describes:
// it is logged and the sync goes on (see docs/operations.md, "Decision history").
@Injectable()
export class DecisionHistoryRecorder {
  private readonly logger = new Logger(DecisionHistoryRecorder.name);

  constructor(
    private readonly history: HistoryRepository,
    private readonly outbox: OutboxRepository,
  ) {}

  // The agent's decision read from the CRM, and the command it became: entries for the outbox to
  // append in the same transaction as the command (OutboxRepository.enqueue's `record`).
  agentMove(m: AgentMove): NewHistoryEntry[] {
    const record = `offer:${m.offerId}`;
    const common = { brokerageId: m.brokerageId, record };
    const amount = m.amount === undefined ? '' : ` at ${m.amount}`;
    return [
      {
        ...common,
        source: 'agent',
        kind: 'agent_move',
        summary: `agent moved CRM record ${m.recordId} to ${m.move} requested${amount}`,
        detail: { crmRecordId: m.recordId, move: m.move, requestId: m.requestId, amount: m.amount },
        outcome: 'requested',
      },
      {
        ...common,
        source: 'daemon',
        kind: 'command_queued',
        summary: `${m.command.operation} queued (outbox command ${m.command.id})`,
        detail: { commandId: m.command.id, operation: m.command.operation },
        outcome: 'queued',
      },
    ];
  }

  // A command's answer: the service's (or, for a write-back, the CRM's). The entries for the outbox
  // to append in the same transaction as the command's new state (OutboxRepository.complete and the
  // other transitions' `record`), so an answer recorded in the ledger is always in the history too.
  // None, said in the log, when the record they belong to cannot be read: the answer still counts.
  async answerEntries(
    command: OutboxCommand,
    answer: CommandAnswer,
    result?: unknown,
    error?: string,
  ): Promise<NewHistoryEntry[]> {
    try {
      const record = await this.recordOfCommand(command);
      const writeBack = command.operation === WRITE_BACK;
      const task = TASK_OPERATIONS.has(command.operation);
      const what = writeBack
        ? `CRM write-back of outbox command ${writeBackOf(command) ?? '?'}`
        : task
          ? `CRM task ${(command.payload as { key?: string } | null)?.key ?? '?'}: ${command.operation}`
          : command.operation;
      const said = ANSWER_WORDS[answer];
      const ids = idsIn(result);
      return [
        {
          brokerageId: command.brokerageId,
          record,
          source: writeBack || task ? 'daemon' : 'service',
          kind: writeBack ? 'write_back' : task ? 'crm_task' : 'command_sent',
          summary: `${what} sent (outbox command ${command.id}, attempt ${command.attempts}): ${said}${error ? `: ${error}` : ''}`,
          detail: { commandId: command.id, operation: command.operation, attempts: command.attempts, ...ids },
          outcome: answer,
        },
      ];
    } catch (failure) {
      this.logger.warn(`decision history: command ${command.id} not recorded: ${errorMessage(failure)}`);
      return [];
    }
  }

  // An inbox event applied to an offer or a request.
  eventApplied(
    brokerageId: string,
    record: string,
    event: string,
    summary: string,
    detail: Record<string, unknown> = {},
  ): Promise<void> {
    return this.append([
      {
        brokerageId,
        record,
        source: 'webhook',
        kind: 'event_applied',
        summary: `${event}: ${summary}`,
        detail: { event, ...detail },
        outcome: 'applied',
      },
    ]);
  }

  // Offer records written to the CRM: what each now shows. An offer the service rejected because
  // another on its request was accepted is the cascade. For the links' upsert to append in its
  // transaction (LinkRepository.upsertLinks's `record`): a kill after the CRM write leaves neither
  // link nor entry, and the next pass, writing the record again, tells it.
  shownEntries(brokerageId: string, shown: ShownOffer[], requestOffers: readonly Offer[]): NewHistoryEntry[] {
    const acceptedOn = new Map(
      requestOffers.filter((o) => o.offer_status === 'accepted').map((o) => [o.offer_request_id, o.offer_id]),
    );
    const entries: NewHistoryEntry[] = shown.map(
      ({ offer, crmId, created, stage, counterId, counterStatus }) => {
        const acceptedOther = acceptedOn.get(offer.offer_request_id);
        const cascade =
          !created &&
          offer.offer_status === 'rejected' &&
          acceptedOther !== undefined &&
          acceptedOther !== offer.offer_id &&
          // Its own counter accepted: the buyer's answer, not a cascade.
          counterStatus !== 'accepted';
        const counter = counterStatus
          ? `, counter ${counterId ?? ''}${counterId ? ' ' : ''}${counterStatus}`
          : '';
        return {
          brokerageId,
          record: `offer:${offer.offer_id}`,
          source: cascade ? ('service' as const) : ('daemon' as const),
          kind: cascade ? 'cascade' : 'record_shown',
          summary:
            (cascade ? `rejected by the service when offer ${acceptedOther} was accepted; ` : '') +
            `CRM record ${crmId} ${created ? 'created' : 'updated'}: ${stage === null ? 'stage left as it was' : `stage ${stage}`}, status ${offer.offer_status}, amount ${offer.offer_amount}${counter}` +
            (offer.offer_is_counter_offer && offer.counter_offer_id
              ? ` (the buyer's acceptance of counter ${offer.counter_offer_id})`
              : ''),
          detail: {
            crmRecordId: crmId,
            requestId: offer.offer_request_id,
            stage,
            status: offer.offer_status,
            amount: offer.offer_amount,
            counterId,
            counterStatus,
            ...(offer.offer_is_counter_offer ? { acceptsCounterId: offer.counter_offer_id ?? null } : {}),
          },
          outcome: created ? 'created' : 'updated',
        };
      },
    );
    return [...entries, ...this.counterAcceptances(brokerageId, shown)];
  }

  // Offer records shown expired once the service stopped listing their offers (UnlistedOffers): for
  // the links' markGone to append in its transaction.
  unlistedShownEntries(brokerageId: string, shown: UnlistedShown[]): NewHistoryEntry[] {
    return shown.map(({ offerId, crmId, stage, counterStatus }) => ({
      brokerageId,
      record: `offer:${offerId}`,
      source: 'daemon' as const,
      kind: 'record_shown',
      summary:
        `CRM record ${crmId} updated: ${stage === null ? 'stage left as it was' : `stage ${stage}`}, status expired` +
        (counterStatus !== null ? `, counter ${counterStatus}` : '') +
        ` (no longer listed by the service; ${unlistedWhy(counterStatus)})`,
      detail: {
        crmRecordId: crmId,
        stage,
        status: 'expired',
        counterStatus,
        unlisted: true,
      },
      outcome: 'updated',
    }));
  }

  // A new offer made by a buyer accepting our counter, written on the countered offer's history too:
  // its life ends in that acceptance.
  private counterAcceptances(brokerageId: string, shown: ShownOffer[]): NewHistoryEntry[] {
    return shown.flatMap(({ offer, created }) => {
      if (!created || !offer.offer_is_counter_offer || !offer.counter_offer_id) return [];
      const countered = shown.find(
        (s) => s.counterId === String(offer.counter_offer_id) && s.offer.offer_id !== offer.offer_id,
      );
      if (!countered) return [];
      return [
        {
          brokerageId,
          record: `offer:${countered.offer.offer_id}`,
          source: 'service' as const,
          kind: 'counter_answered',
          summary: `the buyer accepted counter ${offer.counter_offer_id}: new offer ${offer.offer_id} of ${offer.offer_amount} (${offer.offer_status})`,
          detail: {
            counterId: offer.counter_offer_id,
            newOfferId: offer.offer_id,
            amount: offer.offer_amount,
            status: offer.offer_status,
          },
          outcome: 'accepted',
        },
      ];
    });
  }

  // A request's status shown on its listing deal (approved, under contract ...): appended with its
  // link, as shownEntries are.
  requestShownEntries(
    brokerageId: string,
    requestId: number,
    dealId: string,
    status: string,
    cascade: boolean,
  ): NewHistoryEntry[] {
    return [
      {
        brokerageId,
        record: `request:${requestId}`,
        source: cascade ? 'service' : 'daemon',
        kind: cascade ? 'cascade' : 'record_shown',
        summary: `listing deal ${dealId} shows the request ${status}`,
        detail: { dealId, requestId, status },
        outcome: 'updated',
      },
    ];
  }

  // An unlisted offer's record shown ended later than the pass that found it so (UnlistedOffers).
  recordUnlistedShown(brokerageId: string, shown: UnlistedShown[]): Promise<void> {
    return this.append(this.unlistedShownEntries(brokerageId, shown));
  }

  private async append(entries: NewHistoryEntry[]): Promise<void> {
    try {
      await this.history.append(entries);
    } catch (error) {
      this.logger.warn(`decision history: ${entries.length} entry(ies) not recorded: ${errorMessage(error)}`);
    }
  }

  // Where a command's entry goes: the offer it decides, or the record it was queued for (a listing
  // deal's create). A write-back goes where the command it writes back went.
  private async recordOfCommand(command: OutboxCommand): Promise<string> {
    const original =
      command.operation === WRITE_BACK ? await this.outbox.get(writeBackOf(command) ?? -1) : command;
    const offerId = (original?.payload as { offerId?: unknown } | null)?.offerId;
    if (typeof offerId === 'number') return `offer:${offerId}`;
    return (original ?? command).recordRef;
  }
}

const ANSWER_WORDS: Record<CommandAnswer, string> = {
  done: 'done',
  retry: 'not applied, tried again later',
  unknown: 'no answer, outcome unknown (looked for before it is sent again)',
  dead: 'refused for good (dead)',
};

function writeBackOf(command: OutboxCommand): number | undefined {
  const id = (command.payload as { commandId?: unknown } | null)?.commandId;
  return typeof id === 'number' ? id : undefined;
}

// The ids and statuses in a service answer (never names, addresses or free text).
function idsIn(result: unknown): Record<string, unknown> {
  if (result === null || typeof result !== 'object') return {};
  const kept = Object.entries(result as Record<string, unknown>).filter(
    ([key, value]) =>
      (key.endsWith('_id') || key.endsWith('_status') || key === 'offer_amount') &&
      (typeof value === 'number' || typeof value === 'string'),
  );
  return kept.length > 0 ? { answer: Object.fromEntries(kept) } : {};
}

// Why an unlisted offer's record was shown ended (UnlistedOffers).
function unlistedWhy(counterStatus: string | null): string {
  if (counterStatus === null) return 'past its expiry';
  if (counterStatus === 'expired') return 'ended with the counter on it';
  return 'ran out after its buyer answered the counter on it';
}

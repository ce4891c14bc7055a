import { Injectable, Logger } from '@nestjs/common';
import type { RemoteError } from '../../common/remote-error';
import type { BuyerLeadBody } from '../../cash-offer/schema';
import type { CrmProperties } from '../../crm/crm.types';
import type { OutboxCommand } from '../../ledger';
import { OutboxExecutor } from '../outbox/outbox-executor.decorator';
import type { CommandExecutor, OutboxContext, OutboxReconciliation } from '../outbox/outbox.executors';
import {
  LEAD_ERROR,
  LEAD_ID,
  LEAD_SUBMITTED_AT,
  SUBMIT_BUYER_LEAD,
  SUBMIT_FLAG,
} from './buyer-lead.constants';
import { toCrmDateTime } from '../common/crm-values';
import { leadRefusal } from './lead-refusal';

export interface BuyerLeadPayload {
  contactId: string;
  listingKey: string;
  dealId: string;
  body: BuyerLeadBody;
}

export interface BuyerLeadResult {
  lead_id: string | null;
  created_at: string | null;
}

// POST /buyer/lead for one queued (contact, listing), and what the contact shows afterwards.
@Injectable()
@OutboxExecutor(SUBMIT_BUYER_LEAD)
export class BuyerLeadExecutor implements CommandExecutor {
  private readonly logger = new Logger(BuyerLeadExecutor.name);
  // Unknown outcomes are looked at on every drain; the contact is told once per process.
  private readonly toldUnknown = new Set<number>();

  // Confirmed received by the operator: a lead answered with no body (no lead id to show).
  receivedWithoutAnswer(): BuyerLeadResult {
    return { lead_id: null, created_at: null };
  }

  async send(command: OutboxCommand, ctx: OutboxContext): Promise<BuyerLeadResult> {
    const lead = await ctx.cashOffer.submitBuyerLead(payloadOf(command).body, ctx.call);
    const result = { lead_id: lead?.lead_id ?? null, created_at: lead?.created_at ?? null };
    // The service has no lead lookup (reconcile): its answer is kept before the ledger's writes.
    await ctx.keepAnswer?.(result);
    return result;
  }

  async writeBack(command: OutboxCommand, result: unknown, ctx: OutboxContext): Promise<void> {
    await this.writeContact(command, ctx, leadWriteBack(command, result));
  }

  async onRefused(command: OutboxCommand, error: RemoteError, ctx: OutboxContext): Promise<void> {
    await this.writeContact(command, ctx, {
      [LEAD_ERROR]: leadRefusal(payloadOf(command).listingKey, error),
    });
  }

  // The service has no way to look a lead up, so a lead whose answer was lost can be proven neither
  // sent nor absent: it is never sent again on its own; the operator decides (docs/crm-mapping-buyer.md).
  async reconcile(command: OutboxCommand, ctx: OutboxContext): Promise<OutboxReconciliation> {
    const { listingKey, contactId } = payloadOf(command);
    const hint =
      `the buyer lead of contact ${contactId} on listing ${listingKey} was sent but its answer was lost; ` +
      `the service offers no lead lookup. Ask the service whether it arrived; if not, replay outbox command ${command.id}.`;
    if (!this.toldUnknown.has(command.id)) {
      await this.writeContact(command, ctx, {
        [LEAD_ERROR]: `This buyer lead on listing ${listingKey} may already have been submitted (the answer was lost); it will not be sent again automatically. Your operator is checking it.`,
      }).catch((e: unknown) => this.logger.warn(`contact ${contactId}: ${String(e)}`));
      this.toldUnknown.add(command.id);
    }
    return { found: false, provablyAbsent: false, hint };
  }

  private async writeContact(
    command: OutboxCommand,
    ctx: OutboxContext,
    properties: CrmProperties,
  ): Promise<void> {
    const { contactId } = payloadOf(command);
    const crm = await ctx.crm();
    const [result] = await crm.port.updateRecords('contact', [{ id: contactId, properties }]);
    if (result && !result.ok) throw result.error;
  }
}

// What a submitted lead shows on its contact. Also used by the consumer to repair a contact whose
// write-back was lost (the daemon stopped between the answer and the write-back).
export function leadWriteBack(command: OutboxCommand, result: unknown): CrmProperties {
  const { lead_id, created_at } = (result ?? {}) as Partial<BuyerLeadResult>;
  return {
    [LEAD_ID]: lead_id ?? null,
    [LEAD_SUBMITTED_AT]: toCrmDateTime(created_at) ?? command.completedAt?.toISOString() ?? null,
    [LEAD_ERROR]: null,
    // Done: the flag goes down so the agent sees the submission happened.
    [SUBMIT_FLAG]: 'false',
  };
}

export function payloadOf(command: OutboxCommand): BuyerLeadPayload {
  return command.payload as BuyerLeadPayload;
}

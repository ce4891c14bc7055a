import { Injectable } from '@nestjs/common';
import type { RemoteError } from '../../common/remote-error';
import type { PushToMarketplaceBody, PushToMarketplaceResult } from '../../cash-offer/schema';
import type { CrmProperties } from '../../crm/crm.types';
import type { OutboxCommand } from '../../ledger';
import { OutboxExecutor } from '../outbox/outbox-executor.decorator';
import type { CommandExecutor, OutboxContext, OutboxReconciliation } from '../outbox/outbox.executors';
import { PUSH_FLAG, PUSH_RESULT, PUSH_TO_MARKETPLACE } from './push.constants';

export interface PushPayload {
  dealId: string;
  body: PushToMarketplaceBody;
}

// POST /push-to-marketplace for one flagged deal; the service's answer is shown on the deal.
@Injectable()
@OutboxExecutor(PUSH_TO_MARKETPLACE)
export class PushToMarketplaceExecutor implements CommandExecutor {
  // Its deal's, as the deal's create is queued (send-order.ts).
  orderingKey(command: OutboxCommand): string {
    return `deal:${payloadOf(command).dealId}`;
  }

  // Confirmed received by the operator: a push answered with no body.
  receivedWithoutAnswer(): null {
    return null;
  }

  async send(command: OutboxCommand, ctx: OutboxContext): Promise<PushToMarketplaceResult | null> {
    return (await ctx.cashOffer.pushToMarketplace(payloadOf(command).body, ctx.call)) ?? null;
  }

  async writeBack(command: OutboxCommand, result: unknown, ctx: OutboxContext): Promise<void> {
    await this.writeDeal(command, ctx, pushWriteBack(command, result));
  }

  async onRefused(command: OutboxCommand, error: RemoteError, ctx: OutboxContext): Promise<void> {
    await this.writeDeal(command, ctx, {
      [PUSH_RESULT]: `Refused by the Cash Offer service: ${error.message}`,
    });
  }

  // A push sets the listing's marketplace state and expiration; sending it again sets the same state
  // and cannot create a second listing, so a lost answer is treated as not applied and sent again.
  async reconcile(): Promise<OutboxReconciliation> {
    return { found: false, provablyAbsent: true, hint: 'a push is safe to repeat' };
  }

  private async writeDeal(
    command: OutboxCommand,
    ctx: OutboxContext,
    properties: CrmProperties,
  ): Promise<void> {
    const crm = await ctx.crm();
    const [result] = await crm.port.updateRecords('deal', [{ id: payloadOf(command).dealId, properties }]);
    if (result && !result.ok) throw result.error;
  }
}

// The service's answer as the deal shows it; also used by the consumer to repair a deal whose
// write-back was lost (the daemon stopped between the answer and the write-back).
export function pushWriteBack(command: OutboxCommand, result: unknown): CrmProperties {
  const answer = result as Partial<PushToMarketplaceResult> | null;
  const expiration = payloadOf(command).body.request.expiration_date;
  const verdict = answer?.success === false ? 'Not pushed' : 'Pushed';
  const until = expiration ? ` (expires ${expiration})` : '';
  return {
    [PUSH_RESULT]: `${verdict}${until}: ${answer?.message ?? 'the service gave no message'}`,
    [PUSH_FLAG]: 'false',
  };
}

function payloadOf(command: OutboxCommand): PushPayload {
  return command.payload as PushPayload;
}

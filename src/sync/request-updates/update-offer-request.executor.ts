import { Injectable, Logger } from '@nestjs/common';
import { Clock } from '../../common/clock';
import type { RemoteError } from '../../common/remote-error';
import { CashOfferError } from '../../cash-offer';
import type { CreateOfferRequestBody, UpdateOfferRequestBody } from '../../cash-offer/schema';
import { LinkRepository, OutboxRepository, type OutboxCommand } from '../../ledger';
import { DEAL, LINK } from '../common/listing-deal.properties';
import { RecordIssues } from '../common/record-issues';
import { errorMessage } from '../common/job-counts';
import { OutboxExecutor } from '../outbox/outbox-executor.decorator';
import {
  offerRequestOrderingKey,
  type CommandExecutor,
  type OutboxContext,
  type OutboxReconciliation,
} from '../outbox/outbox.executors';
import { refusalWantsCreateShape, updateAsCreate } from './update-as-create';

import { commandGenerations } from '../common/command-generations';
import { earlierUpdateOnItsWay, lastLiveOf, UPDATE_OFFER_REQUEST, updateKey } from './update-generations';

export { UPDATE_OFFER_REQUEST };

export interface UpdateOfferRequestPayload {
  requestId: number;
  dealId: string;
  body: UpdateOfferRequestBody;
  // Hash of the listing-agent fields this update sends.
  hash: string;
  // The create body the service took (absent in commands queued by earlier versions): sent, with the
  // update's fields, to a service that checks an update as a create body.
  submitted?: CreateOfferRequestBody;
  // Its place in the deal's chain of updates (update-generations.ts); absent in commands queued by
  // earlier versions, which are keyed by their hash and sent as they are.
  generation?: number;
}

// Thrown before anything is sent, so the drain defers the update (no attempt counted) until the
// earlier one has landed or been replaced.
class EarlierUpdateOnItsWay extends Error {}

// An update a newer one of the same deal replaces is never sent: sent after it (a retry, a
// reconcile after a kill) it would put the agent's older value back.
interface UpdateResult {
  superseded?: number;
}

// Flow 2: PATCH /offer-requests/{id} with the listing-agent fields as the deal has them now.
@Injectable()
@OutboxExecutor(UPDATE_OFFER_REQUEST)
export class UpdateOfferRequestExecutor implements CommandExecutor {
  private readonly logger = new Logger(UpdateOfferRequestExecutor.name);

  constructor(
    private readonly links: LinkRepository,
    private readonly issues: RecordIssues,
    private readonly outbox: OutboxRepository,
    private readonly clock: Clock,
  ) {}

  // In order with the request's decisions and photos (send-order.ts).
  orderingKey(command: OutboxCommand): string {
    return offerRequestOrderingKey((command.payload as UpdateOfferRequestPayload).requestId);
  }

  // The deal's chain of updates, read once: the updates before this one and after it (none for a
  // command queued by an earlier version, keyed by its hash).
  private async neighbours(
    brokerageId: string,
    payload: UpdateOfferRequestPayload,
  ): Promise<{ earlier: OutboxCommand[]; later: OutboxCommand[] }> {
    const generation = payload.generation;
    if (generation === undefined) return { earlier: [], later: [] };
    const chain = await commandGenerations((g) =>
      this.outbox.findByKey(updateKey(brokerageId, payload.dealId, g)),
    );
    return { earlier: chain.slice(0, generation - 1), later: chain.slice(generation) };
  }

  // Confirmed received by the operator: the update's answer carries nothing the deal needs.
  receivedWithoutAnswer(): null {
    return null;
  }

  async send(command: OutboxCommand, ctx: OutboxContext): Promise<UpdateResult | null> {
    const payload = command.payload as UpdateOfferRequestPayload;
    const { earlier: before, later } = await this.neighbours(command.brokerageId, payload);
    // The newest later update the service has not refused: this one is replaced.
    const newer = lastLiveOf(later)?.id;
    if (newer !== undefined) {
      this.logger.log(
        `outbox command ${command.id}: the listing-agent update of deal ${payload.dealId} is replaced by a newer one (command ${newer}); not sent`,
      );
      return { superseded: newer };
    }
    const earlier = earlierUpdateOnItsWay(before, this.clock.nowMs());
    if (earlier !== undefined)
      throw new EarlierUpdateOnItsWay(
        `an earlier listing-agent update of deal ${payload.dealId} (command ${earlier.id}, ${earlier.state}) may still reach the service; this one goes after it`,
      );
    try {
      await ctx.cashOffer.updateOfferRequest(payload.requestId, payload.body, ctx.call);
    } catch (error) {
      // A refused update changed nothing: sent again once, in the same attempt, as a create body.
      if (!payload.submitted || !wantsCreateShape(error, payload.body)) throw error;
      this.logger.log(
        `The service checks an offer request update as a create body; request ${payload.requestId} updated with the body it was submitted with and the deal's listing-agent fields`,
      );
      await ctx.call?.refusedBeforeRetry?.(errorMessage(error));
      await ctx.cashOffer.updateOfferRequestAsCreate(
        payload.requestId,
        updateAsCreate(payload.body, payload.submitted),
        ctx.call,
      );
    }
    return null;
  }

  async writeBack(command: OutboxCommand, result: unknown, ctx: OutboxContext): Promise<void> {
    const payload = command.payload as UpdateOfferRequestPayload;
    if ((result as UpdateResult | null)?.superseded !== undefined) return;
    await this.links.upsertLinks(ctx.brokerage.id, LINK.offerRequest, [
      { remoteId: String(payload.requestId), crmId: payload.dealId, contentHash: payload.hash },
    ]);
  }

  async onRefused(command: OutboxCommand, error: RemoteError, ctx: OutboxContext): Promise<void> {
    const payload = command.payload as UpdateOfferRequestPayload;
    await this.issues.report(await ctx.crm(), { id: payload.dealId, properties: {} }, DEAL.syncError, [
      {
        message: `The Cash Offer service refused the listing-agent update: ${error.message}`,
        code: error.code,
      },
    ]);
  }

  // A PATCH that sets values is safe to send again.
  reconcile(): Promise<OutboxReconciliation> {
    return Promise.resolve({
      found: false,
      provablyAbsent: true,
      hint: 'an update can be sent again safely',
    });
  }
}

function wantsCreateShape(error: unknown, body: UpdateOfferRequestBody): boolean {
  return (
    error instanceof CashOfferError &&
    error.code === 'INVALID_RECORD' &&
    !error.keyRefused &&
    refusalWantsCreateShape(body, error.serviceError?.message ?? error.message)
  );
}

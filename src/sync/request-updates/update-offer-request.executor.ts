import { Injectable } from '@nestjs/common';
import type { RemoteError } from '../../common/remote-error';
import type { UpdateOfferRequestBody } from '../../cash-offer/schema';
import { LinkRepository, type OutboxCommand } from '../../ledger';
import { DEAL, LINK } from '../common/listing-deal.properties';
import { RecordIssues } from '../common/record-issues';
import { OutboxExecutor } from '../outbox/outbox-executor.decorator';
import type { CommandExecutor, OutboxContext, OutboxReconciliation } from '../outbox/outbox.executors';

export const UPDATE_OFFER_REQUEST = 'update_offer_request';

export interface UpdateOfferRequestPayload {
  requestId: number;
  dealId: string;
  body: UpdateOfferRequestBody;
  // Hash of the listing-agent fields this update sends.
  hash: string;
}

// Flow 2: PATCH /offer-requests/{id} with the listing-agent fields as the deal has them now.
@Injectable()
@OutboxExecutor(UPDATE_OFFER_REQUEST)
export class UpdateOfferRequestExecutor implements CommandExecutor {
  constructor(
    private readonly links: LinkRepository,
    private readonly issues: RecordIssues,
  ) {}

  async send(command: OutboxCommand, ctx: OutboxContext): Promise<null> {
    const payload = command.payload as UpdateOfferRequestPayload;
    await ctx.cashOffer.updateOfferRequest(payload.requestId, payload.body, ctx.call);
    return null;
  }

  async writeBack(command: OutboxCommand, _result: unknown, ctx: OutboxContext): Promise<void> {
    const payload = command.payload as UpdateOfferRequestPayload;
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

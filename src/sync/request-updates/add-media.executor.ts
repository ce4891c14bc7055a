import { Injectable } from '@nestjs/common';
import type { RemoteError } from '../../common/remote-error';
import type { OutboxCommand } from '../../ledger';
import { DEAL } from '../common/listing-deal.properties';
import { RecordIssues } from '../common/record-issues';
import { OutboxExecutor } from '../outbox/outbox-executor.decorator';
import type { CommandExecutor, OutboxContext, OutboxReconciliation } from '../outbox/outbox.executors';

export const ADD_OFFER_REQUEST_MEDIA = 'add_offer_request_media';

export interface AddMediaPayload {
  requestId: number;
  dealId: string;
  url: string;
}

// A photo link added to a submitted deal: PATCH /offer-requests/ { offer_request_id, media }. One
// command per link (its key names the link), so a photo is never appended twice.
@Injectable()
@OutboxExecutor(ADD_OFFER_REQUEST_MEDIA)
export class AddMediaExecutor implements CommandExecutor {
  constructor(private readonly issues: RecordIssues) {}

  async send(command: OutboxCommand, ctx: OutboxContext): Promise<null> {
    const payload = command.payload as AddMediaPayload;
    await ctx.cashOffer.addMedia(payload.requestId, [payload.url], ctx.call);
    return null;
  }

  writeBack(): Promise<void> {
    return Promise.resolve();
  }

  async onRefused(command: OutboxCommand, error: RemoteError, ctx: OutboxContext): Promise<void> {
    const payload = command.payload as AddMediaPayload;
    await this.issues.report(await ctx.crm(), { id: payload.dealId, properties: {} }, DEAL.syncError, [
      {
        field: 'media',
        message: `The Cash Offer service refused the photo ${payload.url}: ${error.message}`,
        code: error.code,
      },
    ]);
  }

  // The service appends photos and offers no way to list them to their owner: sending again could
  // add the photo twice, so the operator checks.
  reconcile(command: OutboxCommand): Promise<OutboxReconciliation> {
    const payload = command.payload as AddMediaPayload;
    return Promise.resolve({
      found: false,
      provablyAbsent: false,
      hint: `check whether offer request ${payload.requestId} has the photo ${payload.url}; if not, replay command ${command.id}`,
    });
  }
}

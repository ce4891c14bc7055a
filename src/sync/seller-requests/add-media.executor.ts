import { Injectable } from '@nestjs/common';
import type { RemoteError } from '../../common/remote-error';
import type { OutboxCommand } from '../../ledger';
import { DEAL } from '../common/listing-deal.properties';
import { RecordIssues } from '../common/record-issues';
import { OutboxExecutor } from '../outbox/outbox-executor.decorator';
import {
  offerRequestOrderingKey,
  type CommandExecutor,
  type OutboxContext,
  type OutboxReconciliation,
} from '../outbox/outbox.executors';

export const ADD_OFFER_REQUEST_MEDIA = 'add_offer_request_media';

export interface AddMediaPayload {
  requestId: number;
  dealId: string;
  // The photo links this update adds: one added to the deal after submission, or a group of those a
  // create could not carry (photo-batches.queue.ts).
  urls?: string[];
  // One link (commands queued before groups existed).
  url?: string;
}

export function photosOf(payload: AddMediaPayload): string[] {
  return payload.urls ?? (payload.url ? [payload.url] : []);
}

// Photo links added to a submitted request: PATCH /offer-requests/ { offer_request_id, media }. Each
// command's key names its links, so a photo is never appended twice.
@Injectable()
@OutboxExecutor(ADD_OFFER_REQUEST_MEDIA)
export class AddMediaExecutor implements CommandExecutor {
  constructor(private readonly issues: RecordIssues) {}

  // In order with the request's updates and decisions (send-order.ts).
  orderingKey(command: OutboxCommand): string {
    return offerRequestOrderingKey((command.payload as AddMediaPayload).requestId);
  }

  // Confirmed received by the operator: the media update's answer carries nothing.
  receivedWithoutAnswer(): null {
    return null;
  }

  async send(command: OutboxCommand, ctx: OutboxContext): Promise<null> {
    const payload = command.payload as AddMediaPayload;
    await ctx.cashOffer.addMedia(payload.requestId, photosOf(payload), ctx.call);
    // The service cannot list photos (reconcile): the answer is kept before the ledger's writes.
    await ctx.keepAnswer?.(null);
    return null;
  }

  writeBack(): Promise<void> {
    return Promise.resolve();
  }

  async onRefused(command: OutboxCommand, error: RemoteError, ctx: OutboxContext): Promise<void> {
    const payload = command.payload as AddMediaPayload;
    const photos = photosOf(payload);
    const which =
      photos.length === 1 ? `the photo ${photos[0]}` : `${photos.length} photos (${photos.join(', ')})`;
    await this.issues.report(await ctx.crm(), { id: payload.dealId, properties: {} }, DEAL.syncError, [
      {
        field: 'media',
        message: `The Cash Offer service refused ${which} for offer request ${payload.requestId}, so ${photos.length === 1 ? 'it is' : 'they are'} not on the request: ${error.message}`,
        code: error.code,
      },
    ]);
  }

  // The service appends photos and offers no way to list them to their owner: sending again could
  // add the photo twice, so the operator checks.
  reconcile(command: OutboxCommand): Promise<OutboxReconciliation> {
    const payload = command.payload as AddMediaPayload;
    const photos = photosOf(payload).join(', ');
    return Promise.resolve({
      found: false,
      provablyAbsent: false,
      hint: `check whether offer request ${payload.requestId} has the photo(s) ${photos}; if not, replay command ${command.id}`,
    });
  }
}

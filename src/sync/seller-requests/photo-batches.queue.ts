import { Injectable } from '@nestjs/common';
import { OutboxRepository, outboxKey } from '../../ledger';
import { contentHash } from '../common/content-hash';
import { photoBatches } from './photo-cap';
import { ADD_OFFER_REQUEST_MEDIA, type AddMediaPayload } from './add-media.executor';

// The photos a create could not carry (the service takes fewer a call than the deal has), queued as
// media updates in groups of the size the create was accepted with. Each group is an outbox command
// of its own whose key names the request and the group's links: queued again after a crash or a
// repeated write-back, it is the same command, so no photo is appended twice.
@Injectable()
export class PhotoBatchesQueue {
  constructor(private readonly outbox: OutboxRepository) {}

  async queueRest(
    brokerageId: string,
    dealId: string,
    requestId: number,
    photos: readonly string[],
    sent: number,
  ): Promise<number> {
    const batches = photoBatches(photos.slice(sent), sent);
    for (const urls of batches) {
      const payload: AddMediaPayload = { requestId, dealId, urls };
      await this.outbox.enqueue({
        brokerageId,
        idempotencyKey: outboxKey(
          brokerageId,
          `deal:${dealId}`,
          `${ADD_OFFER_REQUEST_MEDIA}:${requestId}:${contentHash(urls)}`,
        ),
        operation: ADD_OFFER_REQUEST_MEDIA,
        recordRef: `deal:${dealId}`,
        payload,
      });
    }
    return batches.length;
  }
}

import type { CallOptions } from '../../cash-offer';
import {
  MEDIA_MAX_ITEMS,
  type CreateOfferRequestBody,
  type OfferRequestRecord,
} from '../../cash-offer/schema';
import { errorMessage } from '../common/job-counts';
import type { OutboxContext } from '../outbox/outbox.executors';
import { fewerPhotos } from './photo-cap';

export interface CreatedWithPhotos {
  record: OfferRequestRecord | undefined;
  // How many of the deal's photos (the first ones) went with the create; undefined when it had none.
  photosSent?: number;
}

// POST /offer-requests, with as many of the deal's photos as the service takes in one call: at most
// our own 50 first, then fewer after each refusal of the body (photo-cap.ts), down to none, where the
// refusal is the body's own and is thrown. A refused create stored nothing, so trying again is safe;
// `noteSending` records each try's photo count before it leaves (the reconcile of a lost answer reads
// it), and the photos left over follow as media updates of their own (photo-batches.queue.ts).
export async function createWithPhotos(
  body: CreateOfferRequestBody,
  ctx: OutboxContext,
  noteSending: (photos: number) => Promise<unknown>,
  onRefused: (photos: number, next: number, error: unknown) => void,
): Promise<CreatedWithPhotos> {
  const photos = body.media ?? [];
  if (photos.length === 0) return { record: await ctx.cashOffer.createOfferRequest(body, ctx.call) };
  let count = Math.min(photos.length, MEDIA_MAX_ITEMS);
  for (;;) {
    const sending = count;
    const call: CallOptions | undefined = ctx.call && {
      beforeSend: async () => {
        await ctx.call?.beforeSend?.();
        await noteSending(sending);
      },
    };
    try {
      const record = await ctx.cashOffer.createOfferRequest(withPhotos(body, photos.slice(0, count)), call);
      return { record, photosSent: count };
    } catch (error) {
      const next = fewerPhotos(error, count);
      if (next === undefined) throw error;
      onRefused(count, next, error);
      await ctx.call?.refusedBeforeRetry?.(errorMessage(error));
      count = next;
    }
  }
}

function withPhotos(body: CreateOfferRequestBody, media: string[]): CreateOfferRequestBody {
  const { media: _all, ...rest } = body;
  return media.length > 0 ? { ...rest, media } : rest;
}

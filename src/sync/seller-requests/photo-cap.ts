import { CashOfferError } from '../../cash-offer';
import { RemoteError } from '../../common/remote-error';
import { refusesExternalId } from './external-id-placement';

// How many photos one call may carry is not shown in the spec (ours: 50). A create the service
// refuses while it carries photos is tried again with fewer, down to none; the photos that did not
// fit follow in media updates of the size that was accepted. Nothing here depends on a message's
// wording: a number the service's message gives beside `media` is only a first guess, and every guess
// is checked by the service's own answer.

// The number of photos to try next after the service refused a create carrying `tried` of them, or
// undefined when fewer cannot help: not a refusal of the body by the service itself (a local check,
// a conflict, a refused key, an outage), or no photo left to drop. Always fewer than `tried`, so the
// search ends (at none at worst, where the refusal is the body's own).
export function fewerPhotos(error: unknown, tried: number): number | undefined {
  if (tried <= 0 || !(error instanceof RemoteError)) return undefined;
  if (error.code !== 'INVALID_RECORD' || error.status === undefined) return undefined;
  // A refusal of where the deal's id went is not the photos' (external-id-placement.ts).
  if (refusesExternalId(error)) return undefined;
  return capNamed(serviceMessage(error), tried) ?? Math.floor(tried / 2);
}

// The largest whole number below `tried` in a message that speaks of media: "media has 12 photos;
// the service allows 10" -> 10, "at most 5 media items" -> 5. Undefined when there is none.
export function capNamed(message: string, tried: number): number | undefined {
  if (!/media/i.test(message)) return undefined;
  const below = (message.match(/\d+/g) ?? []).map(Number).filter((n) => n >= 1 && n < tried);
  return below.length === 0 ? undefined : Math.max(...below);
}

// Photo links in groups of `size` (at least one each), in their order.
export function photoBatches(urls: readonly string[], size: number): string[][] {
  const step = Math.max(1, Math.floor(size));
  const batches: string[][] = [];
  for (let i = 0; i < urls.length; i += step) batches.push(urls.slice(i, i + step));
  return batches;
}

function serviceMessage(error: RemoteError): string {
  return error instanceof CashOfferError && error.serviceError ? error.serviceError.message : error.message;
}

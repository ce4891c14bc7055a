import type { Offer } from '../../cash-offer/schema';

// What an offer's first record needs, kept in its placeholder link (LINK.offerUnconfirmed) before
// the record is made: its request finds the listing deal and seller to associate it with; its
// amount, status and expiry tell the history what the record was made to show. Short keys: a link's
// content holds 128 characters.
interface OfferSeen {
  r: number; // offer_request_id
  a?: number; // offer_amount
  s?: string; // offer_status
  e?: string | null; // offer_expires
}

const CONTENT_MAX = 128;

export function offerSeenContent(offer: Offer): string {
  const seen: OfferSeen = {
    r: offer.offer_request_id,
    a: offer.offer_amount,
    s: offer.offer_status,
    e: offer.offer_expires,
  };
  const full = JSON.stringify(seen);
  // Only the request is needed to find and associate the record.
  return full.length <= CONTENT_MAX ? full : JSON.stringify({ r: seen.r });
}

// The offer a placeholder link kept; undefined when its content is not one (a ledger edited by hand).
export function offerOfSeen(offerId: string, content: string): Offer | undefined {
  try {
    const seen = JSON.parse(content) as Partial<OfferSeen>;
    const id = Number(offerId);
    if (!Number.isSafeInteger(id) || typeof seen.r !== 'number') return undefined;
    return {
      offer_id: id,
      offer_request_id: seen.r,
      offer_amount: typeof seen.a === 'number' ? seen.a : 0,
      offer_status: typeof seen.s === 'string' ? seen.s : 'active',
      offer_expires: seen.e ?? null,
    } as unknown as Offer;
  } catch {
    return undefined;
  }
}

import { CashOfferError } from './cash-offer.error';
import type { OffersQuery } from './call-input.guards';
import type { Offer } from './schema';

// The spec shows GET /offers with no query parameters. A service that keeps to the letter may
// refuse `limit`/`offset` (and the filters) with a 400 or 422; the client then lists with a plain
// GET and applies the query itself, so callers page and filter the same way either way.
export function refusesOffersQuery(error: unknown, query: OffersQuery): boolean {
  return (
    error instanceof CashOfferError &&
    error.code === 'INVALID_RECORD' &&
    (error.status === 400 || error.status === 422) &&
    Object.values(query).some((v) => v !== undefined)
  );
}

// The query, applied to every offer a plain GET returned (in the service's order).
export function applyOffersQuery(all: Offer[], query: OffersQuery): Offer[] {
  const matching = all.filter(
    (o) =>
      (query.offer_request_id === undefined || o.offer_request_id === query.offer_request_id) &&
      (query.status === undefined || o.offer_status === query.status),
  );
  const offset = query.offset ?? 0;
  return matching.slice(offset, query.limit === undefined ? undefined : offset + query.limit);
}

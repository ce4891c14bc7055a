import type { OffersQuery } from './call-input.guards';
import type { Offer } from './schema';

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

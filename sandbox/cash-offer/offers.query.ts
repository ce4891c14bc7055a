import { KNOWN_OFFER_STATUSES } from '../../src/cash-offer/schema';
import { badRequest } from './sandbox.errors';

export interface OffersQuery {
  requestId?: number;
  status?: string;
  limit: number;
  offset: number;
}

// GET /offers query: offer_request_id and status filters, limit 1..500 (default 500), offset.
export function parseOffersQuery(query: URLSearchParams): OffersQuery {
  const problems: string[] = [];
  const int = (name: string, min: number, max: number, fallback?: number): number | undefined => {
    const raw = query.get(name);
    if (raw === null) return fallback;
    const n = /^\d+$/.test(raw) ? Number(raw) : NaN;
    if (!(n >= min && n <= max))
      problems.push(`${name} must be a whole number from ${min} to ${max}; got "${raw}"`);
    return n;
  };
  for (const name of query.keys())
    if (!['offer_request_id', 'status', 'limit', 'offset'].includes(name))
      problems.push(
        `${name} is not a query parameter of GET /offers (offer_request_id, status, limit, offset)`,
      );
  const status = query.get('status') ?? undefined;
  const statuses: readonly string[] = KNOWN_OFFER_STATUSES;
  if (status !== undefined && !statuses.includes(status))
    problems.push(`status must be one of ${statuses.join(', ')}; got "${status}"`);
  const q: OffersQuery = {
    requestId: int('offer_request_id', 1, Number.MAX_SAFE_INTEGER),
    status,
    limit: int('limit', 1, 500, 500)!,
    offset: int('offset', 0, Number.MAX_SAFE_INTEGER, 0)!,
  };
  if (problems.length > 0) throw badRequest(problems.join('; '));
  return q;
}

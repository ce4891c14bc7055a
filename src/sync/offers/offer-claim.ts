import type { JsonObject } from '../../cash-offer/schema';

// A positive integer id, or undefined.
export function positiveId(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : undefined;
}

const NON_NEGATIVE_NUMBERS = [
  'buyer_broker_commission_pct',
  'listing_broker_commission_pct',
  'earnest_money',
  'lease_back_period',
  'post_possession_period',
  'inspection_period',
] as const;

const TIMESTAMPS = ['created_at', 'offer_expires', 'offer_decided_at'] as const;

// What a `new_offer` payload must be before it is even looked up: the spec's types (integer ids
// and amount, numbers for the percentages and periods, date-times), and no negative amounts.
export function offerClaimViolations(payload: JsonObject): string[] {
  const problems: string[] = [];
  if (positiveId(payload.offer_id) === undefined) problems.push('offer_id must be a positive integer');
  if (positiveId(payload.offer_request_id) === undefined)
    problems.push('offer_request_id must be a positive integer');
  const amount = payload.offer_amount;
  if (typeof amount !== 'number' || !Number.isSafeInteger(amount) || amount < 0)
    problems.push(
      `offer_amount must be a whole, non-negative number of dollars; got ${JSON.stringify(amount)}`,
    );
  for (const field of NON_NEGATIVE_NUMBERS) {
    const value = payload[field];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0)
      problems.push(`${field} must be a non-negative number; got ${JSON.stringify(value)}`);
  }
  for (const field of TIMESTAMPS) {
    const value = payload[field];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string' || Number.isNaN(Date.parse(value)))
      problems.push(`${field} must be a date-time; got ${JSON.stringify(value)}`);
  }
  return problems;
}

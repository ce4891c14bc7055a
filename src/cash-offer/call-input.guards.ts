import { CashOfferError } from './cash-offer.error';
import { OperationSpec } from './cash-offer.operations';
import { FieldViolation } from './schema';

// Checks of the arguments that are not bodies (ids, page bounds), and of list answers.
export interface OffersQuery {
  offer_request_id?: number;
  status?: string;
  limit?: number;
  offset?: number;
}

export interface StreamActiveOptions {
  pageSize?: number;
  sort?: string;
}

export const MAX_ACTIVE_PAGE = 100;
export const MAX_OFFERS_PAGE = 500;

export function idViolations(id: unknown): FieldViolation[] {
  return typeof id === 'number' && Number.isInteger(id) && id >= 1
    ? []
    : [{ field: 'offer_request_id', message: `offer_request_id must be a whole number of at least 1` }];
}

export function pageViolations(
  limit: number | undefined,
  offset: number | undefined,
  max: number,
): FieldViolation[] {
  const violations: FieldViolation[] = [];
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1 || limit > max))
    violations.push({ field: 'limit', message: `limit is ${limit}; the service allows 1 to ${max}` });
  if (offset !== undefined && (!Number.isInteger(offset) || offset < 0))
    violations.push({
      field: 'offset',
      message: `offset is ${offset}; it must be a whole number of at least 0`,
    });
  return violations;
}

// A list endpoint answering with an empty body means "nothing"; anything but an array is an error.
export function asList<T>(value: T[] | undefined, op: OperationSpec): T[] {
  if (value === undefined) return [];
  if (!Array.isArray(value))
    throw new CashOfferError({
      code: 'UNAVAILABLE',
      operation: op.name,
      message: `${op.name}: the service answered with something other than a list`,
    });
  return value;
}

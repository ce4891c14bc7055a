import { FieldViolation, formatViolations, validateWire } from '../../src/cash-offer/schema';

// What an error says, for the `errorCodes` spec reading (the codes beyond 400 are not shown): an
// invalid body or query, an impossible transition, a refused key.
export type ApiErrorKind = 'invalid' | 'transition' | 'key';

// An answer the service gives as its error object `{ error, message }` (error repeats the status).
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
    readonly kind?: ApiErrorKind,
  ) {
    super(message);
  }
}

export const badRequest = (message: string): ApiError => new ApiError(400, message, {}, 'invalid');
export const forbidden = (message: string): ApiError => new ApiError(403, message);
export const notFound = (message: string): ApiError => new ApiError(404, message);
export const conflict = (message: string): ApiError => new ApiError(409, message, {}, 'transition');
export const keyRefused = (message: string): ApiError => new ApiError(401, message, {}, 'key');

// Throws a 400 naming every offending field when the validator found any.
export function assertValid(violations: readonly FieldViolation[]): void {
  if (violations.length > 0) throw badRequest(formatViolations(violations));
}

// The body checked against its wire class (400 naming every offending field), then typed as it.
export function readBody<T extends object>(dto: new () => T, body: unknown): T {
  assertValid(validateWire(dto, body));
  return body as T;
}

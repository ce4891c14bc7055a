import { RemoteError } from '../common/remote-error';
import { FieldViolation, formatViolations } from './schema';

export type CashOfferErrorCode =
  | 'INVALID_RECORD'
  | 'AUTH_FAILED'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'RATE_LIMITED'
  | 'UNAVAILABLE'
  | 'OUTCOME_UNKNOWN';

// Codes a caller may simply try again later; OUTCOME_UNKNOWN needs reconciliation first.
const RETRYABLE_CODES: readonly CashOfferErrorCode[] = ['RATE_LIMITED', 'UNAVAILABLE'];

export interface ServiceErrorDetail {
  error: number | string;
  message: string;
}

export interface CashOfferErrorInit {
  code: CashOfferErrorCode;
  operation: string;
  message: string;
  status?: number;
  serviceError?: ServiceErrorDetail;
  violations?: FieldViolation[];
  // How long the service asked us to wait (Retry-After), when it said so.
  retryAfterMs?: number;
  // The transport failure (ECONNREFUSED, timeout...), for logs and retry decisions.
  networkCode?: string;
  // The service refused the API key itself (a 401, or another 4xx whose message says so), not a
  // record or a role: the operator's to fix, and every call fails until it is.
  keyRefused?: boolean;
}

// The one exception the client throws. It never carries request config or headers, so printing
// it (message, stack, inspect, JSON) cannot reveal the API key.
export class CashOfferError extends RemoteError {
  readonly code: CashOfferErrorCode;
  readonly operation: string;
  readonly status?: number;
  readonly serviceError?: ServiceErrorDetail;
  readonly violations?: FieldViolation[];
  readonly retryAfterMs?: number;
  readonly networkCode?: string;
  override readonly keyRefused: boolean;
  readonly retryable: boolean;

  constructor(init: CashOfferErrorInit) {
    super(init.message);
    this.name = 'CashOfferError';
    this.code = init.code;
    this.operation = init.operation;
    if (init.status !== undefined) this.status = init.status;
    if (init.serviceError !== undefined) this.serviceError = init.serviceError;
    if (init.violations !== undefined) this.violations = init.violations;
    if (init.retryAfterMs !== undefined) this.retryAfterMs = init.retryAfterMs;
    if (init.networkCode !== undefined) this.networkCode = init.networkCode;
    this.keyRefused = init.keyRefused === true;
    this.retryable = RETRYABLE_CODES.includes(init.code);
  }

  static invalidRecord(operation: string, violations: FieldViolation[]): CashOfferError {
    return new CashOfferError({
      code: 'INVALID_RECORD',
      operation,
      violations,
      message: `${operation} not sent: ${formatViolations(violations)}`,
    });
  }

  // This refusal, known to be of the key itself (a 403 that did not say why, after which the key was
  // refused on a read every account may make too): `why` is added to its message.
  asKeyRefused(why: string): CashOfferError {
    return new CashOfferError({
      code: this.code,
      operation: this.operation,
      message: `${this.message}; ${why}`,
      status: this.status,
      serviceError: this.serviceError,
      violations: this.violations,
      retryAfterMs: this.retryAfterMs,
      networkCode: this.networkCode,
      keyRefused: true,
    });
  }

  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      code: this.code,
      operation: this.operation,
      message: this.message,
      status: this.status,
      serviceError: this.serviceError,
      violations: this.violations,
      retryAfterMs: this.retryAfterMs,
      networkCode: this.networkCode,
      keyRefused: this.keyRefused,
      retryable: this.retryable,
    };
  }
}

// The answer to a read every account may make (one item of the active list) that refuses the key:
// a 401, a refusal that speaks of the key, or a 403, which there cannot concern a record. The one
// test of a key, for the credential watch and for the drain's look behind a 403 that did not say why.
export function refusesKeyOnOpenRead(error: unknown): error is CashOfferError {
  return (
    error instanceof CashOfferError &&
    error.code === 'AUTH_FAILED' &&
    (error.keyRefused || error.status === 401 || error.status === 403)
  );
}

export function isCashOfferError(error: unknown): error is CashOfferError {
  return error instanceof CashOfferError;
}

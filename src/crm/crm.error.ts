import { RemoteError } from '../common/remote-error';

// One error type for every CRM: retry decisions read `code` and `retryable`, never a vendor body.
// OUTCOME_UNKNOWN: a create (a call that is not idempotent) left and no answer came back (a timeout,
// a 5xx, a dropped connection): the CRM may have made the record. Retryable, for a writer that looks
// for it first (an upsert by its unique key); the outbox looks for it before it sends again.
export type CrmErrorCode =
  | 'RATE_LIMITED'
  | 'UNAVAILABLE'
  | 'OUTCOME_UNKNOWN'
  | 'AUTH_FAILED'
  | 'INVALID_RECORD'
  | 'NOT_FOUND'
  | 'CONFLICT';

const RETRYABLE: ReadonlySet<CrmErrorCode> = new Set(['RATE_LIMITED', 'UNAVAILABLE', 'OUTCOME_UNKNOWN']);

export interface CrmErrorDetails {
  // The record the error is about, in the caller's words (a unique key or a CRM id).
  record?: string;
  // Property names the CRM blamed.
  fields?: string[];
  // HTTP status or vendor status when there was one.
  status?: number;
  // How long the CRM asked us to wait, when it said.
  retryAfterMs?: number;
}

export class CrmError extends RemoteError {
  readonly retryable: boolean;
  readonly record?: string;
  readonly fields: string[];
  readonly status?: number;
  readonly retryAfterMs?: number;

  constructor(
    readonly code: CrmErrorCode,
    message: string,
    details: CrmErrorDetails = {},
  ) {
    super(message);
    this.name = 'CrmError';
    this.retryable = RETRYABLE.has(code);
    this.record = details.record;
    this.fields = details.fields ?? [];
    this.status = details.status;
    this.retryAfterMs = details.retryAfterMs;
  }

  // The same failure, told about one record of a batch.
  forRecord(record: string, prefix: string): CrmError {
    return new CrmError(this.code, `${prefix}: ${this.message}`, {
      record,
      fields: this.fields,
      status: this.status,
      retryAfterMs: this.retryAfterMs,
    });
  }
}

export function isCrmError(value: unknown): value is CrmError {
  return value instanceof CrmError;
}

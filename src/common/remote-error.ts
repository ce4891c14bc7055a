// What every remote's client throws (the Cash Offer service's and each CRM's): one shape, so the
// outbox and the alerts decide by `code` and `retryable`, never by which remote it was.
export abstract class RemoteError extends Error {
  // INVALID_RECORD, AUTH_FAILED, NOT_FOUND, CONFLICT, RATE_LIMITED, UNAVAILABLE (and the service's
  // OUTCOME_UNKNOWN: the request may or may not have taken effect).
  abstract readonly code: string;
  // Trying again later may succeed (RATE_LIMITED, UNAVAILABLE).
  abstract readonly retryable: boolean;
  // The HTTP status, when there was one.
  abstract readonly status?: number;
  // How long the remote asked us to wait, when it said.
  abstract readonly retryAfterMs?: number;
  // The remote refused the credential itself (not a record or a role), when it said so.
  readonly keyRefused?: boolean;
}

// The remote could not be reached, asked us to wait, or refused the credential the operator has to
// fix: what failed is the remote, not the work, so the work waits for the remote instead of counting
// the failure against itself.
export function waitsOnRemote(error: unknown): boolean {
  if (!(error instanceof RemoteError)) return false;
  return (
    error.retryable || (error.code === 'AUTH_FAILED' && (error.status === 401 || error.keyRefused === true))
  );
}

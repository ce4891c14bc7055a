import { RemoteError } from '../../common/remote-error';
import { CrmError } from '../../crm/crm.error';
import { AwaitingEvidenceError } from './awaiting-evidence.error';

// What the drain does with a command whose remote call failed, once a conflict has been checked
// against the remote's state (mayAlreadyBeInEffect). Pure: the table in outbox-decision.spec.ts.
export type OutboxDecision =
  // The request may or may not have taken effect: reconcile, never re-send blindly.
  | { action: 'reconcile' }
  // The brokerage's credentials were refused (the credential watch pauses the brokerage): the
  // command waits to be sent once they work, and its record says why.
  | { action: 'wait-for-credentials' }
  // Never left (the breaker, the limiter, a shutdown): due again later, no attempt counted.
  | { action: 'defer'; retryAfterMs?: number }
  // Provably not applied and worth another try.
  | { action: 'retry'; retryAfterMs?: number }
  // Final: dead-lettered with this code, the record told.
  | { action: 'dead'; code: string; gaveUp: boolean };

export interface FailedCall {
  error: unknown;
  // Whether the request left (the command is `sending`).
  sent: boolean;
  attempts: number;
  maxAttempts: number;
}

export function outboxDecision({ error, sent, attempts, maxAttempts }: FailedCall): OutboxDecision {
  // Waiting for the service to show what finishes it: more tries cannot hurry that, nor end it.
  if (error instanceof AwaitingEvidenceError) return { action: 'retry' };
  const remote = error instanceof RemoteError ? error : undefined;
  if (remote?.code === 'OUTCOME_UNKNOWN') return sent ? { action: 'reconcile' } : { action: 'defer' };
  if (remote && credentialsRefused(remote)) return { action: 'wait-for-credentials' };
  if (remote && !remote.retryable) return { action: 'dead', code: remote.code, gaveUp: false };
  const retryAfterMs = remote?.retryAfterMs;
  if (!sent) return { action: 'defer', ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
  if (attempts < maxAttempts)
    return { action: 'retry', ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
  return { action: 'dead', code: remote?.code ?? 'UNAVAILABLE', gaveUp: true };
}

// A key or token the remote does not take: a 401 (the service's and both CRMs' word for an unknown
// credential), another 4xx in which the service says so, or a CRM's AUTH_FAILED (a refused token or
// a missing scope). A service's 403 concerns a record and stays final.
export function credentialsRefused(error: RemoteError): boolean {
  if (error.code !== 'AUTH_FAILED') return false;
  return error.status === 401 || error.keyRefused === true || error instanceof CrmError;
}

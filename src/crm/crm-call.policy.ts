import { Logger } from '@nestjs/common';
import type { EndTurn } from '../common/rate-limit';
import { RemoteCallPolicy, TimeoutStrategy } from '../common/remote-call.policy';
import type { CrmCallHooks, CrmPolicySettings } from './crm-call.settings';
import { CrmError } from './crm.error';

export { TimeoutStrategy };

// One CRM call, as the retry rules need it.
export interface CrmCall {
  // What is being done, in words for error messages: "upsert 100 deals".
  what: string;
  // Safe to send again when the outcome is unknown (reads, upserts by key, updates); never a create.
  idempotent: boolean;
  record?: string;
  // Called right before the request leaves, after the rate limiter (see RemoteCallPolicy).
  beforeSend?: () => Promise<void>;
  // Called after a 429, which the CRM did not act on, before the call waits to try again.
  refusedBeforeRetry?: (refusal: string) => Promise<void>;
}

export interface CrmCallPolicySpec<C extends CrmCall> {
  crm: string;
  // Whose account the breaker guards, in words: "brokerage acme's HubSpot portal".
  account: string;
  // Timeout, retries and breaker (crm-call.settings.ts); onRateLimitMiss is told of each 429 that
  // names a wait (burst, secondly): one the rate limiter should have prevented. When it is set,
  // retries after a 429 are not logged one by one (the listener counts and logs them once per
  // interval).
  settings: CrmPolicySettings & Pick<CrmCallHooks, 'onRateLimitMiss'>;
  timeoutStrategy: TimeoutStrategy;
  // The adapter's own mapping of what its client threw.
  toError: (error: unknown, call: C) => CrmError;
  // A turn of the account's rate limiter (built by accountLimiter), ended when the call settled.
  takeTurn: (call: C) => Promise<EndTurn>;
  logger: Logger;
}

const isCrmError = (error: unknown, code: CrmError['code']): error is CrmError =>
  error instanceof CrmError && error.code === code;

// The longest wait a CRM may ask for that one call waits out. A longer one (HubSpot's 477 Migration in
// Progress asks for up to a day) fails the call with the wait in `retryAfterMs`, for its caller (the
// outbox, the next run) to schedule: a run is not held for hours.
export const MAX_IN_CALL_WAIT_MS = 60_000;

// A create that failed after it left (no answer in time, a 5xx, a dropped connection) may have been
// made: said so, so that its caller looks for it before making it again (a gateway answering 502
// after the CRM stored the task made it twice before). An answer that names a wait (HubSpot's 477
// Migration in Progress with its Retry-After) is the CRM's refusal, not a lost answer.
function lostAnswer<C extends CrmCall>(error: CrmError, call: C): CrmError {
  if (call.idempotent || error.code !== 'UNAVAILABLE' || error.retryAfterMs !== undefined) return error;
  return new CrmError('OUTCOME_UNKNOWN', `${error.message}; it may have been made`, {
    record: error.record,
    fields: error.fields,
    status: error.status,
  });
}

const asksLongWait = (error: unknown): boolean =>
  error instanceof CrmError && (error.retryAfterMs ?? 0) > MAX_IN_CALL_WAIT_MS;

// The adapters' only retry layer, on the shared remote-call policy, judged by CrmError codes:
// - a 429 means the CRM did not act on the request, so it is retried for any call, after at
//   least the wait the CRM asked for; one without a wait (a daily limit) or with one longer than
//   MAX_IN_CALL_WAIT_MS is not retried;
// - a 5xx, a network failure or a timeout may have been acted on, so only an idempotent call
//   is retried; a create's is OUTCOME_UNKNOWN, for its caller to look for what it may have made;
// - those last failures count against the account's breaker; an open one fails calls fast.
export function crmCallPolicy<C extends CrmCall>(spec: CrmCallPolicySpec<C>): RemoteCallPolicy<C> {
  const { crm, account, settings: s, logger } = spec;
  const { onRateLimitMiss } = s;
  const { consecutiveFailures, halfOpenAfterMs } = s.breaker;
  const policy = new RemoteCallPolicy<C>({
    timeout: {
      ms: s.requestTimeoutMs,
      strategy: spec.timeoutStrategy,
      error: (call) =>
        lostAnswer(
          new CrmError('UNAVAILABLE', `${call.what}: no answer from ${crm} within ${s.requestTimeoutMs} ms`, {
            record: call.record,
          }),
          call,
        ),
    },
    toError: (error, call) => {
      const mapped = lostAnswer(spec.toError(error, call), call);
      if (isCrmError(mapped, 'RATE_LIMITED') && mapped.retryAfterMs !== undefined) onRateLimitMiss?.();
      return mapped;
    },
    takeTurn: spec.takeTurn,
    beforeSend: (call) => call.beforeSend,
    refused: {
      didNothing: (error) => isCrmError(error, 'RATE_LIMITED'),
      hook: (call) => call.refusedBeforeRetry,
    },
    retry: {
      allowanceFor: (error, call) => {
        if (asksLongWait(error)) return undefined;
        if (isCrmError(error, 'RATE_LIMITED') && error.retryAfterMs !== undefined) return 'rateLimited';
        if (isCrmError(error, 'UNAVAILABLE') && call.idempotent) return 'transient';
        return undefined;
      },
      allowances: { rateLimited: s.maxRateLimitRetries, transient: s.maxTransientRetries },
      baseDelayMs: s.retryBaseDelayMs,
      maxDelayMs: s.retryMaxDelayMs,
      retryAfterMs: (error) => (error instanceof CrmError ? error.retryAfterMs : undefined),
    },
    breaker: {
      consecutiveFailures,
      halfOpenAfterMs,
      counts: (error) => isCrmError(error, 'UNAVAILABLE') || isCrmError(error, 'OUTCOME_UNKNOWN'),
      openError: (call) =>
        new CrmError(
          'UNAVAILABLE',
          `${call.what}: not sent; the circuit to ${account} is open after ${consecutiveFailures} failed attempts in a row (no answer or a 5xx); one call is let through ${Math.round(halfOpenAfterMs / 1000)} s after it opened`,
          { record: call.record },
        ),
    },
    onRetry: ({ call, error, attempt, delayMs }) => {
      if (onRateLimitMiss && isCrmError(error, 'RATE_LIMITED')) return;
      const said = error instanceof Error ? error.message : `${call.what}: failed`;
      logger.warn(`${said}; retry ${attempt} in ${Math.round(delayMs)} ms`);
    },
  });
  policy.breaker.onBreak(() =>
    logger.error(`circuit to ${account} opened after ${consecutiveFailures} failed attempts in a row`),
  );
  policy.breaker.onHalfOpen(() => logger.log(`circuit to ${account} half-open, trying one call`));
  policy.breaker.onReset(() => logger.log(`circuit to ${account} closed, ${crm} answers again`));
  return policy;
}

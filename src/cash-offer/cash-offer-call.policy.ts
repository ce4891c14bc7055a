import type { EndTurn } from '../common/rate-limit';
import { RemoteCallPolicy, TimeoutStrategy } from '../common/remote-call.policy';
import { CashOfferError } from './cash-offer.error';
import type { ClientLogger } from './cash-offer.client';
import type { ResolvedClientOptions } from './cash-offer-client.options';
import { countsAgainstBreaker, isRetryableAttempt } from './failure.classifier';

// What one brokerage's policy is built from; a call is named by its operation.
export interface CashOfferCallPolicySpec {
  options: ResolvedClientOptions;
  // A turn of the API key's rate limiter (built by accountLimiter), ended when the call settled.
  takeTurn: () => Promise<EndTurn>;
  logger: ClientLogger;
}

// Rate limit, retry, circuit breaker and timeout of one brokerage, on the shared remote-call policy,
// built as the CRM side's (crm/crm-call.policy.ts): a function of the settings and the limiter.
// The timeout is cooperative: it aborts the attempt's signal, and the transport, which knows
// whether the request had left (a connect or an answer timeout: whether a create may have been
// processed), fails with its own code.
export function cashOfferCallPolicy(spec: CashOfferCallPolicySpec): RemoteCallPolicy<string> {
  const { options, logger } = spec;
  const { retry: r, breaker: b } = options;
  const who = `brokerage ${options.brokerageId}`;
  const policy = new RemoteCallPolicy<string>({
    takeTurn: spec.takeTurn,
    timeout: { ms: options.timeoutMs, strategy: TimeoutStrategy.Cooperative },
    retry: {
      allowanceFor: (e) => {
        if (!isRetryableAttempt(e, r.maxRetryAfterMs)) return undefined;
        return e instanceof CashOfferError && e.code === 'RATE_LIMITED' ? 'rateLimited' : 'retryable';
      },
      allowances: { retryable: r.maxAttempts - 1, rateLimited: r.maxRateLimitedAttempts - 1 },
      baseDelayMs: r.baseDelayMs,
      maxDelayMs: r.maxDelayMs,
      retryAfterMs: (e) => (e instanceof CashOfferError ? e.retryAfterMs : undefined),
    },
    breaker: {
      consecutiveFailures: b.consecutiveFailures,
      halfOpenAfterMs: b.halfOpenAfterMs,
      counts: countsAgainstBreaker,
      openError: (operation) =>
        new CashOfferError({
          code: 'UNAVAILABLE',
          operation,
          message: `${operation}: not sent; the circuit of brokerage ${options.brokerageId} is open after repeated failures of the service`,
        }),
    },
    onRetry: ({ error, attempt, delayMs }) => {
      const what =
        error instanceof CashOfferError ? `${error.operation} failed (${error.code}` : 'call failed (';
      const status = error instanceof CashOfferError ? (error.status ?? error.networkCode ?? '') : '';
      logger.warn(`${who}: ${what} ${status}); retry ${attempt} in ${Math.round(delayMs)} ms`);
    },
  });
  policy.breaker.onBreak(() => {
    logger.error(`${who}: circuit opened after ${b.consecutiveFailures} consecutive failures`);
  });
  policy.breaker.onHalfOpen(() => {
    logger.log(`${who}: circuit half-open, trying one call`);
  });
  policy.breaker.onReset(() => {
    logger.log(`${who}: circuit closed, the service answers again`);
  });
  return policy;
}

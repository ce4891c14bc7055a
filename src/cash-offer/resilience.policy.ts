import { RemoteCallPolicy, TimeoutStrategy, type AttemptContext } from '../common/remote-call.policy';
import { RollingWindowLimiter } from '../common/rolling-window.limiter';
import { CashOfferError } from './cash-offer.error';
import type { ClientLogger } from './cash-offer.client';
import { ResolvedClientOptions } from './cash-offer-client.options';
import { countsAgainstBreaker, isRetryableAttempt } from './failure.classifier';

// Rate limit, retry, circuit breaker and timeout of one brokerage, on the shared remote-call policy.
// The timeout is cooperative: it aborts the attempt's signal, and the transport, which knows
// whether the request had left (a connect or an answer timeout: whether a create may have been
// processed), fails with its own code.
export class ResiliencePolicy {
  private readonly policy: RemoteCallPolicy<string>;

  constructor(options: ResolvedClientOptions, logger: ClientLogger) {
    const { retry: r, breaker: b, rateLimit } = options;
    const who = `brokerage ${options.brokerageId}`;
    // Other workers calling with the same API key count against the same budget.
    const limiter = new RollingWindowLimiter(
      { max: rateLimit.requests, intervalMs: rateLimit.perMs },
      options.sharedLimiter && { limiter: options.sharedLimiter, account: options.account },
    );
    this.policy = new RemoteCallPolicy<string>({
      beforeAttempt: () => limiter.acquire(),
      timeout: { ms: options.timeoutMs, strategy: TimeoutStrategy.Cooperative },
      retry: {
        allowanceFor: (e) => (isRetryableAttempt(e, r.maxRetryAfterMs) ? 'retryable' : undefined),
        allowances: { retryable: r.maxAttempts - 1 },
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
    this.policy.breaker.onBreak(() => {
      logger.error(`${who}: circuit opened after ${b.consecutiveFailures} consecutive failures`);
    });
    this.policy.breaker.onHalfOpen(() => {
      logger.log(`${who}: circuit half-open, trying one call`);
    });
    this.policy.breaker.onReset(() => {
      logger.log(`${who}: circuit closed, the service answers again`);
    });
  }

  // Runs `attempt` (its 1-based number and the signal its deadline aborts) under the brokerage's
  // policies.
  execute<T>(operation: string, attempt: (context: AttemptContext) => Promise<T>): Promise<T> {
    return this.policy.execute(operation, attempt);
  }
}

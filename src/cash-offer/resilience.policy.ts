import {
  BrokenCircuitError,
  ConsecutiveBreaker,
  DelegateBackoff,
  ExponentialBackoff,
  IBackoff,
  IMergedPolicy,
  IRetryBackoffContext,
  IRetryContext,
  IDefaultPolicyContext,
  circuitBreaker,
  fullJitterGenerator,
  handleWhen,
  retry,
  wrap,
  CircuitBreakerPolicy,
  RetryPolicy,
} from 'cockatiel';
import { RateLimiterMemory, RateLimiterQueue } from 'rate-limiter-flexible';
import { CashOfferError } from './cash-offer.error';
import type { ClientLogger } from './cash-offer.client';
import { ResolvedClientOptions } from './cash-offer-client.options';
import { countsAgainstBreaker, isRetryableAttempt } from './failure.classifier';

// The next wait: full-jitter exponential backoff (random in [0, min(cap, base * 2^n))), but never
// shorter than the Retry-After the service sent.
export function retryDelay(jittered: number, error: unknown): number {
  const retryAfter = error instanceof CashOfferError ? (error.retryAfterMs ?? 0) : 0;
  return Math.max(jittered, retryAfter);
}

type Policy = IMergedPolicy<
  IRetryContext & IDefaultPolicyContext,
  never,
  [RetryPolicy, CircuitBreakerPolicy]
>;

// Rate limit, retry and circuit breaker of one brokerage. Retry is the outer layer, so every
// attempt passes the breaker and the rate limiter; an open breaker ends the call at once.
export class ResiliencePolicy {
  private readonly policy: Policy;
  private readonly breaker: CircuitBreakerPolicy;
  private readonly queue: RateLimiterQueue;
  private readonly sharedLimit: { max: number; intervalMs: number };

  constructor(
    private readonly options: ResolvedClientOptions,
    private readonly logger: ClientLogger,
  ) {
    const { retry: r, breaker: b, rateLimit } = options;
    this.sharedLimit = { max: rateLimit.requests, intervalMs: rateLimit.perMs };
    this.queue = new RateLimiterQueue(
      new RateLimiterMemory({ points: rateLimit.requests, duration: rateLimit.perMs / 1000 }),
    );
    const exponential = new ExponentialBackoff({
      generator: fullJitterGenerator,
      initialDelay: r.baseDelayMs,
      maxDelay: r.maxDelayMs,
    });
    const backoff = new DelegateBackoff<IRetryBackoffContext<unknown>, IBackoff<unknown> | undefined>(
      (context, previous) => {
        const next = previous ? previous.next(context) : exponential.next();
        const error = 'error' in context.result ? context.result.error : undefined;
        return { delay: retryDelay(next.duration, error), state: next };
      },
    );
    const retryPolicy = retry(
      handleWhen((e) => isRetryableAttempt(e, r.maxRetryAfterMs)),
      { maxAttempts: r.maxAttempts - 1, backoff },
    );
    this.breaker = circuitBreaker(handleWhen(countsAgainstBreaker), {
      halfOpenAfter: b.halfOpenAfterMs,
      breaker: new ConsecutiveBreaker(b.consecutiveFailures),
    });
    this.policy = wrap(retryPolicy, this.breaker);

    const who = `brokerage ${options.brokerageId}`;
    retryPolicy.onRetry((event) => {
      const error = 'error' in event ? event.error : undefined;
      const what =
        error instanceof CashOfferError ? `${error.operation} failed (${error.code}` : 'call failed (';
      const status = error instanceof CashOfferError ? (error.status ?? error.networkCode ?? '') : '';
      this.logger.warn(`${who}: ${what} ${status}); retry ${event.attempt} in ${Math.round(event.delay)} ms`);
    });
    this.breaker.onBreak(() => {
      this.logger.error(`${who}: circuit opened after ${b.consecutiveFailures} consecutive failures`);
    });
    this.breaker.onHalfOpen(() => {
      this.logger.log(`${who}: circuit half-open, trying one call`);
    });
    this.breaker.onReset(() => {
      this.logger.log(`${who}: circuit closed, the service answers again`);
    });
  }

  // Runs `attempt` (1-based attempt number) under the brokerage's policies.
  async execute<T>(operation: string, attempt: (attemptNo: number) => Promise<T>): Promise<T> {
    try {
      return await this.policy.execute(async (context) => {
        await this.queue.removeTokens(1);
        // Other workers calling with the same API key count against the same budget.
        await this.options.sharedLimiter?.acquire(this.options.account, this.sharedLimit);
        return attempt(context.attempt + 1);
      });
    } catch (error) {
      if (error instanceof BrokenCircuitError)
        throw new CashOfferError({
          code: 'UNAVAILABLE',
          operation,
          message: `${operation}: not sent; the circuit of brokerage ${this.options.brokerageId} is open after repeated failures of the service`,
        });
      throw error;
    }
  }
}

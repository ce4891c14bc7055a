import {
  BrokenCircuitError,
  CircuitBreakerPolicy,
  ConsecutiveBreaker,
  DelegateBackoff,
  ExponentialBackoff,
  IBackoff,
  IRetryBackoffContext,
  TaskCancelledError,
  TimeoutPolicy,
  TimeoutStrategy,
  circuitBreaker,
  fullJitterGenerator,
  handleWhen,
  retry,
  timeout,
} from 'cockatiel';
import type { EndTurn } from './rate-limit';

export { TimeoutStrategy };

// What one attempt of a call is given: its number (1 for the first try) and the signal the
// timeout aborts (a cooperative call passes it on to its HTTP client).
export interface AttemptContext {
  attempt: number;
  signal: AbortSignal;
}

export interface RetryEvent<C> {
  call: C;
  error: unknown;
  // The retry about to be made, 1 for the first.
  attempt: number;
  delayMs: number;
}

// Everything that differs between remotes; `C` describes one call (its name, whether it may be
// sent twice, ...), so the predicates can judge a failure for the call it ended.
export interface RemoteCallPolicyOptions<C> {
  // Gives up on one attempt after `ms`. Aggressive abandons an attempt whose client takes no
  // AbortSignal; cooperative aborts the attempt's signal and waits for the client to stop.
  // `error` is what the timed-out attempt fails with; without it (cooperative only) the client's
  // own error stands, for a client that tells more (whether the request had left, say).
  timeout?: { ms: number; strategy: TimeoutStrategy; error?: (call: C) => unknown };
  // Turns what an attempt threw into the error the predicates and the caller see.
  toError?: (error: unknown, call: C) => unknown;
  // The rate limiter's turn, taken before each attempt the breaker lets through, outside the
  // timeout; ended when the attempt's call has settled (see attempt()).
  takeTurn?: (call: C) => Promise<EndTurn>;
  // The caller's last word before an attempt leaves, after the rate limiter let it through (the
  // outbox's compare-and-set that makes one drain a command's only sender). What it throws ends the
  // call as thrown: not retried, not counted by the breaker, not mapped by toError.
  beforeSend?: (call: C) => (() => Promise<void>) | undefined;
  // The caller's word after an attempt that did nothing (`didNothing`: a 429, which the remote never
  // acted on), while the call may still try again: the outbox takes its command back from `sending`
  // until the next beforeSend, so a crash during the wait leaves nothing unknown. What it throws
  // ends the call as thrown, as beforeSend's does.
  refused?: {
    didNothing: (error: unknown) => boolean;
    hook: (call: C) => ((refusal: string) => Promise<void>) | undefined;
  };
  retry: {
    // The allowance a failed attempt draws on, or undefined when it is not to be retried (a 429
    // may be retried on any call, a 5xx only on one that is safe to send twice, ...).
    allowanceFor: (error: unknown, call: C) => string | undefined;
    // Retries of one call per allowance, e.g. { rateLimited: 6, transient: 3 }.
    allowances: Readonly<Record<string, number>>;
    // Full-jitter exponential backoff: retry n waits a random time below
    // min(maxDelayMs, baseDelayMs * 2^(n-1)), so parallel callers do not come back in step...
    baseDelayMs: number;
    maxDelayMs: number;
    // ...but never less than the remote asked for (Retry-After).
    retryAfterMs?: (error: unknown) => number | undefined;
  };
  breaker: {
    // Opens after this many failed attempts in a row (`counts`), fails calls fast while open,
    // and lets one call through halfOpenAfterMs later: its success closes it again.
    consecutiveFailures: number;
    halfOpenAfterMs: number;
    // Failures that say the remote is unwell; others (a 4xx, a 429) leave the count alone.
    counts: (error: unknown) => boolean;
    // What a call refused by the open breaker fails with.
    openError: (call: C) => unknown;
  };
  onRetry?: (event: RetryEvent<C>) => void;
}

// The one way remote calls are made resilient (cockatiel): retry outermost, so every attempt
// passes the breaker, then the rate limiter, then the timeout. An open breaker ends the call at
// once, without retrying.
export class RemoteCallPolicy<C> {
  // cockatiel's own breaker, for its events (onBreak, onHalfOpen, onReset) and state.
  readonly breaker: CircuitBreakerPolicy;
  private readonly timeout?: TimeoutPolicy;
  private readonly backoff: DelegateBackoff<IRetryBackoffContext<unknown>, IBackoff<unknown> | undefined>;
  private readonly maxRetries: number;

  constructor(private readonly options: RemoteCallPolicyOptions<C>) {
    const { retry: r, breaker: b } = options;
    this.breaker = circuitBreaker(
      handleWhen((error) => !(error instanceof Fenced) && b.counts(error)),
      {
        halfOpenAfter: b.halfOpenAfterMs,
        breaker: new ConsecutiveBreaker(b.consecutiveFailures),
      },
    );
    if (options.timeout) this.timeout = timeout(options.timeout.ms, options.timeout.strategy);
    const exponential = new ExponentialBackoff({
      generator: fullJitterGenerator,
      initialDelay: r.baseDelayMs,
      maxDelay: r.maxDelayMs,
    });
    this.backoff = new DelegateBackoff((context, previous: IBackoff<unknown> | undefined) => {
      const next = previous ? previous.next(context) : exponential.next();
      const error = 'error' in context.result ? context.result.error : undefined;
      return { delay: Math.max(next.duration, r.retryAfterMs?.(error) ?? 0), state: next };
    });
    this.maxRetries = Object.values(r.allowances).reduce((sum, n) => sum + n, 0);
  }

  // `stop` ends the call early (its client closing for a shutdown): no attempt is made once it is
  // aborted, and a wait between retries is not waited out (cockatiel's own waits take no signal).
  async execute<T>(
    call: C,
    attempt: (context: AttemptContext) => Promise<T>,
    stop?: { signal: AbortSignal; error: (call: C) => Error },
  ): Promise<T> {
    // The allowances are per call, so the retry policy (cheap) is too; the breaker is shared.
    const used = new Map<string, number>();
    const retries = retry(
      handleWhen((error) => !(error instanceof Fenced) && this.mayRetry(error, call, used)),
      { maxAttempts: this.maxRetries, backoff: this.backoff },
    );
    const onRetry = this.options.onRetry;
    if (onRetry)
      retries.onRetry((event) =>
        onRetry({
          call,
          error: 'error' in event ? event.error : undefined,
          attempt: event.attempt,
          delayMs: event.delay,
        }),
      );
    const run = retries.execute(({ attempt: retried }) => {
      if (stop?.signal.aborted) throw stop.error(call);
      return this.breaker.execute(() => this.attempt(call, retried + 1, attempt));
    });
    try {
      return await (stop ? untilStopped(run, stop.signal, () => stop.error(call)) : run);
    } catch (error) {
      if (error instanceof BrokenCircuitError) throw this.options.breaker.openError(call);
      if (error instanceof Fenced) throw error.cause;
      throw error;
    }
  }

  // cockatiel asks its filter once per failed attempt, so the allowance is spent here; maxAttempts
  // (their sum) is only the outer bound.
  private mayRetry(error: unknown, call: C, used: Map<string, number>): boolean {
    if (error instanceof BrokenCircuitError) return false;
    const allowance = this.options.retry.allowanceFor(error, call);
    if (allowance === undefined) return false;
    const spent = used.get(allowance) ?? 0;
    if (spent >= (this.options.retry.allowances[allowance] ?? 0)) return false;
    used.set(allowance, spent + 1);
    return true;
  }

  private async attempt<T>(
    call: C,
    attemptNo: number,
    attempt: (context: AttemptContext) => Promise<T>,
  ): Promise<T> {
    const endTurn = await this.options.takeTurn?.(call);
    const fence = this.options.beforeSend?.(call);
    if (fence)
      try {
        await fence();
      } catch (error) {
        endTurn?.();
        throw new Fenced(error);
      }
    let sent: Promise<T> | undefined;
    const send = (context: AttemptContext) => (sent = attempt(context));
    try {
      if (!this.timeout) return await send({ attempt: attemptNo, signal: new AbortController().signal });
      const timeoutError = this.options.timeout?.error;
      return await this.timeout.execute(async ({ signal }) => {
        try {
          return await send({ attempt: attemptNo, signal });
        } catch (error) {
          // A cooperative client fails with its own cancellation error once the timeout aborts it.
          throw signal.aborted && timeoutError ? new TaskCancelledError() : error;
        }
      });
    } catch (error) {
      const timeoutError = this.options.timeout?.error;
      if (error instanceof TaskCancelledError && timeoutError) throw timeoutError(call);
      const failure = this.options.toError ? this.options.toError(error, call) : error;
      await this.tellRefused(call, failure);
      throw failure;
    } finally {
      // The turn ends when the call itself has settled, not when the timeout stopped waiting for
      // it: an abandoned call may still be on its way, and the remote counts it when it arrives.
      if (endTurn && sent) void sent.then(endTurn, endTurn);
      else endTurn?.();
    }
  }

  private async tellRefused(call: C, failure: unknown): Promise<void> {
    const refused = this.options.refused;
    const hook = refused?.didNothing(failure) ? refused.hook(call) : undefined;
    if (!hook) return;
    try {
      await hook(failure instanceof Error ? failure.message : String(failure));
    } catch (error) {
      throw new Fenced(error);
    }
  }
}

// `run`, or `stopped()` as soon as `signal` aborts; `run` goes on unobserved (it makes no further
// attempt once the signal is aborted).
async function untilStopped<T>(run: Promise<T>, signal: AbortSignal, stopped: () => Error): Promise<T> {
  run.catch(() => undefined);
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(stopped());
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([run, aborted]);
  } finally {
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
}

// What a caller's beforeSend threw, carried past the retry, the breaker and toError unchanged.
class Fenced extends Error {
  constructor(override readonly cause: unknown) {
    super('stopped before sending');
  }
}

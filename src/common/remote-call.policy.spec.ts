import { CircuitState } from 'cockatiel';
import { RemoteCallPolicy, TimeoutStrategy, type RemoteCallPolicyOptions } from './remote-call.policy';

interface Call {
  what: string;
  idempotent: boolean;
}

class Failure extends Error {
  constructor(
    readonly kind: 'busy' | 'down' | 'bad',
    readonly retryAfterMs?: number,
  ) {
    super(kind);
  }
}

const kindOf = (error: unknown) => (error instanceof Failure ? error.kind : undefined);

function policy(overrides: Partial<RemoteCallPolicyOptions<Call>> = {}) {
  return new RemoteCallPolicy<Call>({
    retry: {
      allowanceFor: (error, call) => {
        if (kindOf(error) === 'busy') return 'rateLimited';
        if (kindOf(error) === 'down' && call.idempotent) return 'transient';
        return undefined;
      },
      allowances: { rateLimited: 3, transient: 2 },
      baseDelayMs: 1,
      maxDelayMs: 1,
      retryAfterMs: (error) => (error instanceof Failure ? error.retryAfterMs : undefined),
    },
    breaker: {
      consecutiveFailures: 3,
      halfOpenAfterMs: 1000,
      counts: (error) => kindOf(error) === 'down',
      openError: (call) => new Error(`${call.what}: not sent; the circuit is open`),
    },
    ...overrides,
  });
}

const read: Call = { what: 'read', idempotent: true };
const create: Call = { what: 'create', idempotent: false };

// Settles `promise` while fake time runs; returns its outcome.
async function settle<T>(promise: Promise<T>, ms = 60_000): Promise<{ value?: T; error?: unknown }> {
  const outcome = promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  await jest.advanceTimersByTimeAsync(ms);
  return outcome;
}

describe('RemoteCallPolicy', () => {
  beforeEach(() => jest.useFakeTimers({ now: 0 }));
  afterEach(() => jest.useRealTimers());

  it("ends the call with what the caller's beforeSend threw: not sent, not retried, not counted, not mapped", async () => {
    class Taken extends Error {}
    const attempt = jest.fn().mockResolvedValue('sent');
    const toError = jest.fn((error: unknown) => new Error(`mapped: ${String(error)}`));
    const fenced = policy({
      beforeSend: () => () => Promise.reject(new Taken('taken by another drain')),
      toError,
    });
    for (let i = 0; i < 5; i++) {
      const outcome = await settle(fenced.execute(read, attempt));
      expect(outcome.error).toBeInstanceOf(Taken);
    }
    expect(attempt).not.toHaveBeenCalled();
    expect(toError).not.toHaveBeenCalled();
    // Five in a row left the breaker (3 failures) closed.
    expect(fenced.breaker.state).toBe(CircuitState.Closed);
  });

  it('tells the caller of each attempt that did nothing before it waits to try again; its throw ends the call', async () => {
    const order: string[] = [];
    const attempt = jest
      .fn()
      .mockRejectedValueOnce(new Failure('busy', 1000))
      .mockRejectedValueOnce(new Failure('down'))
      .mockResolvedValue('sent');
    const told = policy({
      beforeSend: () => () => Promise.resolve(void order.push('beforeSend')),
      refused: {
        didNothing: (error) => kindOf(error) === 'busy',
        hook: () => (refusal) => Promise.resolve(void order.push(`refused: ${refusal}`)),
      },
    });
    // A 429 did nothing: told. A 5xx may have been acted on: not told (the command stays sending).
    expect(await settle(told.execute(read, attempt))).toEqual({ value: 'sent' });
    expect(order).toEqual(['beforeSend', 'refused: busy', 'beforeSend', 'beforeSend']);

    // A caller that finds its command taken meanwhile ends the call with its own error, unretried.
    class Taken extends Error {}
    const busy = jest.fn().mockRejectedValue(new Failure('busy', 1000));
    const taken = policy({
      refused: { didNothing: () => true, hook: () => () => Promise.reject(new Taken('taken by another drain')) },
    });
    expect((await settle(taken.execute(create, busy))).error).toBeInstanceOf(Taken);
    expect(busy).toHaveBeenCalledTimes(1);
  });

  it('calls beforeSend after the rate limiter let the attempt through, then sends', async () => {
    const order: string[] = [];
    const fenced = policy({
      takeTurn: () => {
        order.push('turn');
        return Promise.resolve(() => undefined);
      },
      beforeSend: () => () => {
        order.push('beforeSend');
        return Promise.resolve();
      },
    });
    await settle(
      fenced.execute(read, () => {
        order.push('send');
        return Promise.resolve('ok');
      }),
    );
    expect(order).toEqual(['turn', 'beforeSend', 'send']);
  });

  it('ends a call waiting to retry as soon as it is stopped, and makes no further attempt', async () => {
    const stopping = new AbortController();
    const attempt = jest.fn().mockRejectedValue(new Failure('busy', 30_000));
    const call = policy().execute(read, attempt, {
      signal: stopping.signal,
      error: (c) => new Error(`${c.what}: the client is closed`),
    });
    const outcome = call.then(
      () => 'done',
      (error: Error) => error.message,
    );
    await jest.advanceTimersByTimeAsync(10);
    expect(attempt).toHaveBeenCalledTimes(1);
    stopping.abort();
    await jest.advanceTimersByTimeAsync(0);
    expect(await outcome).toBe('read: the client is closed');
    // The wait it was in runs out unobserved, and no attempt follows it.
    await jest.advanceTimersByTimeAsync(60_000);
    expect(attempt).toHaveBeenCalledTimes(1);
  });

  it('retries a rate-limited attempt no sooner than the Retry-After, on any call', async () => {
    const attempt = jest.fn().mockRejectedValueOnce(new Failure('busy', 1500)).mockResolvedValueOnce('done');
    const result = policy().execute(create, attempt);
    await jest.advanceTimersByTimeAsync(1499);
    expect(attempt).toHaveBeenCalledTimes(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(attempt).toHaveBeenCalledTimes(2);
    await expect(result).resolves.toBe('done');
    expect(attempt.mock.calls.map(([context]) => (context as { attempt: number }).attempt)).toEqual([1, 2]);
  });

  it('retries a failure of a remote that is down only for a call safe to send twice', async () => {
    const flaky = jest.fn().mockRejectedValueOnce(new Failure('down')).mockResolvedValueOnce('ok');
    expect(await settle(policy().execute(read, flaky))).toEqual({ value: 'ok' });
    const once = jest.fn().mockRejectedValue(new Failure('down'));
    expect((await settle(policy().execute(create, once))).error).toMatchObject({ kind: 'down' });
    expect(once).toHaveBeenCalledTimes(1);
  });

  it('keeps an allowance per kind of failure, per call', async () => {
    const busy = jest.fn().mockRejectedValue(new Failure('busy', 10));
    expect((await settle(policy().execute(read, busy))).error).toMatchObject({ kind: 'busy' });
    expect(busy).toHaveBeenCalledTimes(4);
    const down = jest.fn().mockRejectedValue(new Failure('down'));
    expect((await settle(policy().execute(read, down))).error).toMatchObject({ kind: 'down' });
    expect(down).toHaveBeenCalledTimes(3);
    const bad = jest.fn().mockRejectedValue(new Failure('bad'));
    expect((await settle(policy().execute(read, bad))).error).toMatchObject({ kind: 'bad' });
    expect(bad).toHaveBeenCalledTimes(1);
  });

  it('gives up on a slow attempt after the timeout with the error named for it, and retries it', async () => {
    const timeout = {
      ms: 500,
      strategy: TimeoutStrategy.Aggressive,
      error: () => new Failure('down'),
    };
    const never = jest.fn(() => new Promise<never>(() => undefined));
    const outcome = await settle(policy({ timeout }).execute(read, never));
    expect(outcome.error).toMatchObject({ kind: 'down' });
    expect(never).toHaveBeenCalledTimes(3);
  });

  it('aborts the signal of a cooperative attempt, whose own error becomes the timeout error', async () => {
    const timeout = {
      ms: 200,
      strategy: TimeoutStrategy.Cooperative,
      error: (call: Call) => new Error(`${call.what}: no answer within 200 ms`),
    };
    const signals: AbortSignal[] = [];
    const cooperative = jest.fn(
      ({ signal }: { signal: AbortSignal }) =>
        new Promise<never>((_, reject) => {
          signals.push(signal);
          signal.addEventListener('abort', () => reject(new Error('canceled')));
        }),
    );
    const outcome = await settle(policy({ timeout }).execute(create, cooperative));
    expect((outcome.error as Error).message).toBe('create: no answer within 200 ms');
    expect(signals.map((s) => s.aborted)).toEqual([true]);
  });

  it("ends each attempt's rate-limit turn when its call settled, even one the timeout gave up on", async () => {
    const log: string[] = [];
    const takeTurn = async () => {
      log.push(`turn at ${Date.now()}`);
      return () => void log.push(`ended at ${Date.now()}`);
    };
    const timeout = { ms: 500, strategy: TimeoutStrategy.Aggressive, error: () => new Failure('down') };
    // The first attempt answers only at 2 s, long after the timeout stopped waiting for it at
    // 500 ms: the remote may count it any time until then. The retry answers at once.
    const slowThenQuick = jest
      .fn()
      .mockImplementationOnce(() => new Promise((resolve) => setTimeout(resolve, 2000)))
      .mockResolvedValueOnce('ok');
    expect(await settle(policy({ timeout, takeTurn }).execute(read, slowThenQuick), 5000)).toEqual({
      value: 'ok',
    });
    expect(log).toEqual(['turn at 0', 'turn at 501', 'ended at 501', 'ended at 2000']);
    // A call that throws at once, and one refused before it is made, end their turns too.
    log.length = 0;
    const bad = jest.fn().mockRejectedValue(new Failure('bad'));
    await settle(policy({ takeTurn }).execute(create, bad));
    expect(log).toEqual(['turn at 5000', 'ended at 5000']);
  });

  it('opens the breaker after N failed attempts in a row, fails fast, then lets one call through', async () => {
    const p = policy();
    const down = jest.fn().mockRejectedValue(new Failure('down'));
    await settle(p.execute(read, down), 100);
    expect(down).toHaveBeenCalledTimes(3);
    const refused = jest.fn().mockResolvedValue('ok');
    const fast = await settle(p.execute(read, refused), 0);
    expect((fast.error as Error).message).toBe('read: not sent; the circuit is open');
    expect(refused).not.toHaveBeenCalled();
    // Half-open after halfOpenAfterMs: one call goes through, and its success closes the breaker.
    await jest.advanceTimersByTimeAsync(1000);
    expect(await settle(p.execute(read, refused), 0)).toEqual({ value: 'ok' });
    expect(await settle(p.execute(read, refused), 0)).toEqual({ value: 'ok' });
    expect(refused).toHaveBeenCalledTimes(2);
  });

  it('a failed half-open call opens the breaker again', async () => {
    const p = policy();
    const down = jest.fn().mockRejectedValue(new Failure('down'));
    await settle(p.execute(read, down), 100);
    await jest.advanceTimersByTimeAsync(1000);
    await settle(p.execute(create, down), 0);
    expect(down).toHaveBeenCalledTimes(4);
    expect(((await settle(p.execute(read, down), 0)).error as Error).message).toContain('circuit is open');
    expect(down).toHaveBeenCalledTimes(4);
  });

  it('does not count failures that say the remote is up (a 429, a refused record)', async () => {
    const p = policy();
    const busy = jest.fn().mockRejectedValue(new Failure('busy', 10));
    const bad = jest.fn().mockRejectedValue(new Failure('bad'));
    for (let i = 0; i < 3; i++) {
      await settle(p.execute(read, busy));
      await settle(p.execute(read, bad));
    }
    const ok = jest.fn().mockResolvedValue('ok');
    expect(await settle(p.execute(read, ok), 0)).toEqual({ value: 'ok' });
  });
});

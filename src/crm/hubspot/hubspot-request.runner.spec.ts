import type { CrmError } from '../crm.error';
import type { HubSpotRateLimiter } from './hubspot-rate-limiter';
import { HubSpotRequestRunner, type CallSpec } from './hubspot-request.runner';

const failure = (code: number, body: unknown = {}, headers: Record<string, string> = {}) =>
  Object.assign(new Error('ApiException'), { code, body, headers });
const burst = () => failure(429, { message: 'ten_secondly_rolling' }, { 'retry-after': '2' });

const settings = {
  requestTimeoutMs: 1000,
  maxRateLimitRetries: 3,
  maxTransientRetries: 2,
  retryBaseDelayMs: 1,
  retryMaxDelayMs: 1,
  breaker: { consecutiveFailures: 4, halfOpenAfterMs: 30_000 },
};
const read: CallSpec = { what: 'read deals', lane: 'general', idempotent: true };
const note: CallSpec = { what: 'add a note', lane: 'general', idempotent: false };

// The call's outcome once fake time has run for `ms`.
async function settle<T>(promise: Promise<T>, ms = 60_000): Promise<{ value?: T; error?: CrmError }> {
  const outcome = promise.then(
    (value) => ({ value }),
    (error: CrmError) => ({ error }),
  );
  await jest.advanceTimersByTimeAsync(ms);
  return outcome;
}

describe('HubSpotRequestRunner', () => {
  let acquired: string[];
  let runner: HubSpotRequestRunner;

  beforeEach(() => {
    jest.useFakeTimers({ now: 0 });
    acquired = [];
    const limiter = {
      acquire: async (lane: string) => {
        acquired.push(lane);
        return () => undefined;
      },
    };
    runner = new HubSpotRequestRunner(
      limiter as unknown as HubSpotRateLimiter,
      settings,
      "brokerage acme's HubSpot portal",
    );
  });
  afterEach(() => jest.useRealTimers());

  it('retries a 429 on any call no sooner than its Retry-After, taking a rate-limit turn each time', async () => {
    const call = jest.fn().mockRejectedValueOnce(burst()).mockResolvedValueOnce('done');
    const result = runner.run(note, call);
    await jest.advanceTimersByTimeAsync(1999);
    expect(call).toHaveBeenCalledTimes(1);
    await jest.advanceTimersByTimeAsync(1);
    await expect(result).resolves.toBe('done');
    expect(call).toHaveBeenCalledTimes(2);
    expect(runner.calls).toBe(2);
    expect(acquired).toEqual(['general', 'general']);
  });

  it('gives up after maxRateLimitRetries 429s with RATE_LIMITED, and never retries a daily limit', async () => {
    const call = jest.fn().mockRejectedValue(burst());
    expect((await settle(runner.run(read, call))).error).toMatchObject({ code: 'RATE_LIMITED' });
    expect(call).toHaveBeenCalledTimes(4);
    const daily = jest.fn().mockRejectedValue(failure(429, { policyName: 'DAILY', message: 'daily' }));
    expect((await settle(runner.run(read, daily))).error).toMatchObject({ code: 'RATE_LIMITED' });
    expect(daily).toHaveBeenCalledTimes(1);
  });

  it('retries a 5xx only when the call is idempotent, maxTransientRetries times', async () => {
    const flaky = jest.fn().mockRejectedValueOnce(failure(503)).mockResolvedValueOnce('ok');
    expect(await settle(runner.run(read, flaky))).toEqual({ value: 'ok' });
    const down = jest.fn().mockRejectedValue(failure(502));
    expect((await settle(runner.run(read, down))).error).toMatchObject({ code: 'UNAVAILABLE', status: 502 });
    expect(down).toHaveBeenCalledTimes(3);
    // A create's 5xx may come after HubSpot stored it (a gateway losing the answer): not sent again,
    // and said to be unknown, for its caller to look for it.
    const create = jest.fn().mockRejectedValue(failure(503));
    expect((await settle(runner.run(note, create))).error).toMatchObject({
      code: 'OUTCOME_UNKNOWN',
      retryable: true,
      status: 503,
    });
    expect(create).toHaveBeenCalledTimes(1);
    // A 477 Migration in Progress names its wait: HubSpot refused the create, it did not lose it.
    const migrating = jest.fn().mockRejectedValue(failure(477, {}, { 'retry-after': '3600' }));
    expect((await settle(runner.run(note, migrating))).error).toMatchObject({
      code: 'UNAVAILABLE',
      retryAfterMs: 3_600_000,
    });
  });

  it('does not retry a validation error', async () => {
    const call = jest.fn().mockRejectedValue(failure(400, { category: 'VALIDATION_ERROR', message: 'bad' }));
    expect((await settle(runner.run(read, call))).error).toMatchObject({ code: 'INVALID_RECORD' });
    expect(call).toHaveBeenCalledTimes(1);
  });

  it('turns a call with no answer within requestTimeoutMs into UNAVAILABLE, a create into OUTCOME_UNKNOWN', async () => {
    const silent = jest.fn(() => new Promise<never>(() => undefined));
    expect((await settle(runner.run(read, silent))).error).toMatchObject({
      code: 'UNAVAILABLE',
      retryable: true,
      message: 'read deals: no answer from HubSpot within 1000 ms',
    });
    const { error } = await settle(runner.run(note, silent));
    expect(error).toMatchObject({
      code: 'OUTCOME_UNKNOWN',
      retryable: true,
      message: 'add a note: no answer from HubSpot within 1000 ms; it may have been made',
    });
    expect(silent).toHaveBeenCalledTimes(4);
  });

  it('opens the breaker after consecutive failures, fails fast naming the portal, then half-opens', async () => {
    const down = jest.fn().mockRejectedValue(failure(503));
    await settle(runner.run(read, down), 100);
    await settle(runner.run(note, down), 100);
    expect(down).toHaveBeenCalledTimes(4);
    const ok = jest.fn().mockResolvedValue('ok');
    const { error } = await settle(runner.run(read, ok), 0);
    expect(error).toMatchObject({ code: 'UNAVAILABLE', retryable: true });
    expect(error?.message).toContain(
      "read deals: not sent; the circuit to brokerage acme's HubSpot portal is open",
    );
    expect(ok).not.toHaveBeenCalled();
    expect(runner.calls).toBe(4);
    await jest.advanceTimersByTimeAsync(30_000);
    expect(await settle(runner.run(read, ok), 0)).toEqual({ value: 'ok' });
    expect(await settle(runner.run(read, ok), 0)).toEqual({ value: 'ok' });
  });

  it('does not count 429s or refused records against the breaker', async () => {
    const invalid = jest.fn().mockRejectedValue(failure(400, { category: 'VALIDATION_ERROR' }));
    for (let i = 0; i < 5; i++) await settle(runner.run(read, invalid));
    await settle(runner.run(read, jest.fn().mockRejectedValue(burst())));
    expect(await settle(runner.run(read, jest.fn().mockResolvedValue('ok')), 0)).toEqual({ value: 'ok' });
  });
});

import type { HubSpotRateLimiter } from './hubspot-rate-limiter';
import { HubSpotRequestRunner } from './hubspot-request.runner';

const limiter = { acquire: jest.fn(async () => undefined) } as unknown as HubSpotRateLimiter;
const options = { requestTimeoutMs: 1000, maxRateLimitRetries: 3, maxTransientRetries: 2 };
const failure = (code: number, body: unknown = {}) =>
  Object.assign(new Error('ApiException'), { code, body, headers: {} });

describe('HubSpotRequestRunner', () => {
  let waits: number[];
  let runner: HubSpotRequestRunner;

  beforeEach(() => {
    waits = [];
    runner = new HubSpotRequestRunner(limiter, options, async (ms) => {
      waits.push(ms);
    });
  });

  it('waits and retries a 429, then succeeds', async () => {
    const call = jest
      .fn()
      .mockRejectedValueOnce(failure(429, { message: 'You have reached your secondly limit.' }))
      .mockResolvedValueOnce('done');
    await expect(runner.run({ what: 'search', lane: 'search', idempotent: false }, call)).resolves.toBe(
      'done',
    );
    expect(call).toHaveBeenCalledTimes(2);
    expect(waits).toHaveLength(1);
    expect(waits[0]).toBeGreaterThanOrEqual(1000);
    expect(runner.calls).toBe(2);
  });

  it('gives up after the configured number of 429s with RATE_LIMITED', async () => {
    const call = jest
      .fn()
      .mockRejectedValue(failure(429, { message: 'You have reached your secondly limit.' }));
    await expect(
      runner.run({ what: 'search', lane: 'search', idempotent: true }, call),
    ).rejects.toMatchObject({
      code: 'RATE_LIMITED',
    });
    expect(call).toHaveBeenCalledTimes(4);
  });

  it('retries a 5xx only when the call is idempotent', async () => {
    const flaky = jest.fn().mockRejectedValueOnce(failure(503)).mockResolvedValueOnce('ok');
    await expect(runner.run({ what: 'read', lane: 'general', idempotent: true }, flaky)).resolves.toBe('ok');
    const create = jest.fn().mockRejectedValue(failure(503));
    await expect(
      runner.run({ what: 'add a note', lane: 'general', idempotent: false }, create),
    ).rejects.toMatchObject({
      code: 'UNAVAILABLE',
    });
    expect(create).toHaveBeenCalledTimes(1);
  });

  it('does not retry a validation error', async () => {
    const call = jest.fn().mockRejectedValue(failure(400, { category: 'VALIDATION_ERROR', message: 'bad' }));
    await expect(
      runner.run({ what: 'upsert', lane: 'general', idempotent: true }, call),
    ).rejects.toMatchObject({
      code: 'INVALID_RECORD',
    });
    expect(call).toHaveBeenCalledTimes(1);
    expect(waits).toEqual([]);
  });
});

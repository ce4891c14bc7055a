import axios, {
  AxiosError,
  AxiosHeaders,
  CanceledError,
  type AxiosInstance,
  type AxiosRequestConfig,
} from 'axios';
import type { CrmError } from '../crm.error';
import { FollowUpBossHttpClient, type FubCall } from './followupboss-http.client';
import { resolveFollowUpBossOptions } from './followupboss.options';

// An answer FUB gave with a status other than 2xx, as axios rejects it.
function answered(status: number, headers: Record<string, string> = {}): AxiosError {
  const config = { headers: new AxiosHeaders() };
  return new AxiosError(
    `status ${status}`,
    'ERR_BAD_RESPONSE',
    config,
    {},
    {
      status,
      statusText: '',
      headers,
      config,
      data: { errorMessage: `answer ${status}` },
    },
  );
}

const read: FubCall = { method: 'GET', path: '/deals/1', what: 'read deal 1', idempotent: true };
const create: FubCall = { method: 'POST', path: '/deals', what: 'create a deal', idempotent: false };

async function settle<T>(promise: Promise<T>, ms = 60_000): Promise<{ value?: T; error?: CrmError }> {
  const outcome = promise.then(
    (value) => ({ value }),
    (error: CrmError) => ({ error }),
  );
  await jest.advanceTimersByTimeAsync(ms);
  return outcome;
}

describe('FollowUpBossHttpClient', () => {
  let request: jest.Mock<Promise<unknown>, [AxiosRequestConfig]>;
  let client: FollowUpBossHttpClient;

  beforeEach(() => {
    jest.useFakeTimers({ now: 0 });
    request = jest.fn();
    jest.spyOn(axios, 'create').mockReturnValue({ request } as unknown as AxiosInstance);
    client = new FollowUpBossHttpClient(
      resolveFollowUpBossOptions({
        apiKey: 'key',
        baseUrl: 'http://127.0.0.1:1',
        requestTimeoutMs: 500,
        maxRateLimitRetries: 2,
        maxTransientRetries: 3,
        retryBaseDelayMs: 1,
        retryMaxDelayMs: 1,
        breaker: { consecutiveFailures: 5, halfOpenAfterMs: 10_000 },
        brokerageId: 'acme',
      }),
    );
  });
  afterEach(() => {
    jest.useRealTimers();
    jest.restoreAllMocks();
  });

  it("retries a 429 on a create no sooner than FUB's Retry-After", async () => {
    request
      .mockRejectedValueOnce(answered(429, { 'retry-after': '2' }))
      .mockResolvedValueOnce({ data: { id: 7 } });
    const result = client.call(create);
    await jest.advanceTimersByTimeAsync(1999);
    expect(request).toHaveBeenCalledTimes(1);
    await jest.advanceTimersByTimeAsync(1);
    await expect(result).resolves.toEqual({ id: 7 });
    expect(client.calls).toBe(2);
  });

  it('retries a 5xx for an idempotent call only', async () => {
    request.mockRejectedValue(answered(503));
    expect((await settle(client.call(read), 1000)).error).toMatchObject({ code: 'UNAVAILABLE', status: 503 });
    expect(request).toHaveBeenCalledTimes(4);
    request.mockClear();
    // Not sent again: the 503 may have come after FUB stored it. Said unknown, for the caller to look.
    expect((await settle(client.call(create), 1000)).error).toMatchObject({
      code: 'OUTCOME_UNKNOWN',
      status: 503,
    });
    expect(request).toHaveBeenCalledTimes(1);
  });

  it('aborts a request with no answer within requestTimeoutMs and reports a create as OUTCOME_UNKNOWN', async () => {
    const signals: AbortSignal[] = [];
    request.mockImplementation(
      (config) =>
        new Promise((_, reject) => {
          signals.push(config.signal as AbortSignal);
          config.signal?.addEventListener?.('abort', () => reject(new CanceledError()));
        }),
    );
    const { error } = await settle(client.call(create), 1000);
    expect(error).toMatchObject({
      code: 'OUTCOME_UNKNOWN',
      message: 'create a deal: no answer from Follow Up Boss within 500 ms; it may have been made',
    });
    expect(signals.map((s) => s.aborted)).toEqual([true]);
  });

  it('opens the breaker after consecutive failures and names the account in the fast failure', async () => {
    request.mockRejectedValue(answered(502));
    await settle(client.call(read), 1000);
    await settle(client.call(create), 1000);
    expect(request).toHaveBeenCalledTimes(5);
    const { error } = await settle(client.call(read), 0);
    expect(error?.code).toBe('UNAVAILABLE');
    expect(error?.message).toMatch(
      /^read deal 1: not sent; the circuit to brokerage acme's Follow Up Boss account is open/,
    );
    expect(request).toHaveBeenCalledTimes(5);
    request.mockResolvedValue({ data: [] });
    await jest.advanceTimersByTimeAsync(10_000);
    expect(await settle(client.call(read), 0)).toEqual({ value: [] });
  });
});

import { CashOfferError } from '../../../src/cash-offer';
import { freePort } from '../../support/free-port';
import { waitFor } from '../../support/wait-for';
import { SandboxHarness, offerRequestBody } from './sandbox.harness';

// The client's resilience against the sandbox's fault injection, checked in its call log.
describe('CashOfferClient under faults (sandbox)', () => {
  const h = new SandboxHarness();

  beforeAll(() => h.start());
  afterAll(() => h.stop());
  beforeEach(() => h.reset());

  it('waits out a 429 with Retry-After: 2 before trying again', async () => {
    await h.faults({ match: 'GET /offers', rateLimit: { requests: 1, retryAfterSeconds: 2 } });
    const client = h.client({ retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 5 } });
    await expect(client.listOffers()).resolves.toEqual([]);
    const calls = (await h.calls()).filter((c) => c.path === '/api/v2/offers');
    expect(calls.map((c) => c.status)).toEqual([429, 200]);
    expect(Date.parse(calls[1].at) - Date.parse(calls[0].at)).toBeGreaterThanOrEqual(2000);
  });

  it('retries a 5xx on a GET and succeeds', async () => {
    // With seed 7 the sandbox's generator fails the first two calls at a 50 % error rate.
    await h.faults({ match: 'GET /active-offer-requests', errorRate: 0.5, errorStatus: 503, seed: 7 });
    const attempts: Array<number | string> = [];
    const client = h.client({ onCall: (e) => attempts.push(e.status) });
    await expect(client.listActiveOfferRequests({ limit: 10 })).resolves.toEqual([]);
    expect(attempts).toEqual([503, 503, 200]);
    const statuses = (await h.calls()).map((c) => c.status);
    expect(statuses).toEqual([503, 503, 200]);
  });

  it('reports OUTCOME_UNKNOWN when a create times out after the service committed it, and sends it once', async () => {
    await h.faults({ match: 'POST /offer-requests', hangAfterCommitMs: 800 });
    const client = h.client({ timeoutMs: 200 });
    const error = (await client
      .createOfferRequest(offerRequestBody())
      .catch((e: unknown) => e)) as CashOfferError;
    expect(error).toBeInstanceOf(CashOfferError);
    expect(error).toMatchObject({
      code: 'OUTCOME_UNKNOWN',
      operation: 'POST /offer-requests',
      retryable: false,
    });
    // The sandbox logs the call when its hang ends.
    const calls = await waitFor(
      async () => {
        const cs = await h.calls();
        return cs.some((c) => c.fault === 'hang-after-commit') && cs;
      },
      { what: 'the hung create in the call log' },
    );
    expect(calls.filter((c) => c.method === 'POST')).toHaveLength(1);
    expect(await h.storedRequests()).toHaveLength(1);
  });

  it('never repeats a photo add the service may have stored: it appends, so a second send would add the photo twice', async () => {
    const agent = h.client();
    const id = Number((await agent.createOfferRequest(offerRequestBody()))?.offer_request_id);
    await h.faults({ match: 'PATCH /offer-requests', errorAfterCommitRate: 1, errorAfterCommitStatus: 502 });
    const error = (await agent
      .addMedia(id, ['https://photos.example.test/porch.jpg'])
      .catch((e: unknown) => e)) as CashOfferError;
    expect(error).toMatchObject({ code: 'OUTCOME_UNKNOWN', operation: 'PATCH /offer-requests', status: 502 });
    const patches = (await h.calls()).filter((c) => c.method === 'PATCH');
    expect(patches.map((c) => c.status)).toEqual([502]);
    const [stored] = await h.storedRequests();
    const porch = (stored.media ?? []).filter((m) => m.url === 'https://photos.example.test/porch.jpg');
    expect(porch).toHaveLength(1);
  });

  it('retries a create whose connection was refused: it provably never left', async () => {
    const attempts: string[] = [];
    const client = h.client({
      baseUrl: `http://127.0.0.1:${await freePort()}/api/v2`,
      retry: { maxAttempts: 3, baseDelayMs: 1 },
      onCall: (e) => attempts.push(String(e.status)),
    });
    // The caller is told after each that nothing left (the outbox keeps the command pending
    // meanwhile, so a crash between the tries leaves nothing whose outcome is unknown).
    const hooks: string[] = [];
    const call = {
      beforeSend: async () => void hooks.push('beforeSend'),
      refusedBeforeRetry: async (said: string) => void hooks.push(`nothing left: ${said}`),
    };
    await expect(client.createOfferRequest(offerRequestBody(), call)).rejects.toMatchObject({
      code: 'UNAVAILABLE',
      networkCode: 'ECONNREFUSED',
    });
    expect(attempts).toEqual(['network_error', 'network_error', 'network_error']);
    const refused = 'nothing left: POST /offer-requests: the service refused the connection';
    expect(hooks).toEqual(['beforeSend', refused, 'beforeSend', refused, 'beforeSend', refused]);
  });

  it('opens the breaker after repeated failures, fails fast, then recovers half-open', async () => {
    await h.faults({ match: 'GET /offers', errorRate: 1, errorStatus: 500 });
    const client = h.client({
      retry: { maxAttempts: 1 },
      breaker: { consecutiveFailures: 3, halfOpenAfterMs: 300 },
    });
    for (let i = 0; i < 3; i++) await expect(client.listOffers()).rejects.toMatchObject({ status: 500 });
    const fast = (await client.listOffers().catch((e: unknown) => e)) as CashOfferError;
    expect(fast).toMatchObject({ code: 'UNAVAILABLE', retryable: true });
    expect(fast.status).toBeUndefined();
    expect(fast.message).toContain('circuit');
    expect((await h.calls()).length).toBe(3);

    await h.control('DELETE', '/faults');
    // Calls fail fast while the breaker is open; the first one it lets through half-open answers.
    const offers = await waitFor(() => client.listOffers(), {
      what: 'the half-open breaker to let a call through',
    });
    expect(offers).toEqual([]);
    // While open, nothing was sent: the log has the three failures, then the half-open success.
    expect((await h.calls()).map((c) => c.status)).toEqual([500, 500, 500, 200]);
  });
});

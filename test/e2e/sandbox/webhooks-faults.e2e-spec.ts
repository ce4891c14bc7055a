import { RunningCashOfferSandbox, WebhookDeliveryRecord } from '../../../sandbox/cash-offer';
import {
  Json,
  WebhookReceiver,
  activeRequest,
  buyerOffer,
  call,
  control,
  createBody,
  startTestSandbox,
} from './sandbox.helpers';
import { waitFor } from '../../support/wait-for';

// Webhook delivery (retries 20/40/80 ms and a 300 ms timeout in this test configuration) and
// every kind of injected fault.
describe('Cash Offer sandbox: webhook delivery and faults', () => {
  let sandbox: RunningCashOfferSandbox;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    sandbox = await startTestSandbox();
  });
  afterAll(() => sandbox.close());
  beforeEach(async () => {
    await control(sandbox, 'POST', '/reset');
    receiver = await new WebhookReceiver().start();
    await call(sandbox, 'POST', '/wh', { url: receiver.url });
  });
  afterEach(() => receiver.stop());

  const deliveries = async () =>
    (await control(sandbox, 'GET', '/webhook-deliveries')).body as WebhookDeliveryRecord[];
  // The delivery log once the sandbox has given a delivery up.
  const givenUp = () =>
    waitFor(
      async (): Promise<Json> => {
        const all = await deliveries();
        return all.some((d) => d.outcome === 'gave_up') ? all : undefined;
      },
      { what: 'the sandbox to give the delivery up' },
    );
  const storedRequests = async (): Promise<Json> => (await control(sandbox, 'GET', '/offer-requests')).body;

  describe('delivery', () => {
    it('retries a failed delivery with backoff and logs every attempt', async () => {
      receiver.respond = (_body, n) => (n <= 2 ? 500 : 204);
      const { offer_request_id: id } = await activeRequest(sandbox);
      const log = await waitFor(
        async (): Promise<Json> => {
          const all = await deliveries();
          return all.some((d) => d.outcome === 'delivered') ? all : undefined;
        },
        { what: 'a delivered webhook in the delivery log' },
      );
      expect(log.map((d: Json) => [d.attempt as number, d.status as number, d.outcome as string])).toEqual([
        [1, 500, 'failed'],
        [2, 500, 'failed'],
        [3, 204, 'delivered'],
      ]);
      expect(log[0]).toMatchObject({
        url: receiver.url,
        event: { event: 'offer_request_approved', offer_request_id: id },
      });
      expect(receiver.received).toHaveLength(3);
    });

    it('times out a receiver that does not answer, then retries', async () => {
      receiver.respond = (_body, n) => (n === 1 ? 'hang' : 200);
      await activeRequest(sandbox);
      const log = await waitFor(
        async (): Promise<Json> => {
          const all = await deliveries();
          return all.some((d) => d.outcome === 'delivered') ? all : undefined;
        },
        { what: 'a delivered webhook in the delivery log' },
      );
      expect(log[0]).toMatchObject({
        attempt: 1,
        status: null,
        outcome: 'failed',
        error: 'no answer within 300 ms',
      });
      expect(log[1]).toMatchObject({ attempt: 2, status: 200, outcome: 'delivered' });
    });

    it('gives up after the last retry', async () => {
      receiver.respond = () => 503;
      await activeRequest(sandbox);
      const log = await givenUp();
      expect(log.filter((d: Json) => d.outcome === 'failed').map((d: Json) => d.attempt as number)).toEqual([
        1, 2, 3, 4,
      ]);
      expect(receiver.received).toHaveLength(4);
    });

    it('under eventDelivery: once, tries a delivery once and never again (a fire-and-forget sender)', async () => {
      await control(sandbox, 'PUT', '/spec-readings', { eventDelivery: 'once' });
      try {
        receiver.respond = () => 503;
        await activeRequest(sandbox);
        const log = await givenUp();
        expect(
          log.map((d: Json) => [d.attempt as number, d.outcome as string, d.error as string | null]),
        ).toEqual([
          [1, 'failed', null],
          [1, 'gave_up', 'not retried (eventDelivery: once)'],
        ]);
        expect(receiver.received).toHaveLength(1);
      } finally {
        await control(sandbox, 'PUT', '/spec-readings', { eventDelivery: 'retried' });
      }
    });

    it('webhook faults: duplicates', async () => {
      await control(sandbox, 'PUT', '/faults', { webhooks: { duplicateRate: 1, maxDuplicates: 2 } });
      await activeRequest(sandbox);
      await waitFor(() => receiver.received.length === 3, { what: 'the webhook and its two duplicates' });
      expect(new Set(receiver.received.map((e) => JSON.stringify(e))).size).toBe(1);
      expect((await deliveries()).filter((d) => d.duplicate)).toHaveLength(2);
    });

    it('webhook faults: drops', async () => {
      await control(sandbox, 'PUT', '/faults', { webhooks: { dropRate: 1 } });
      await activeRequest(sandbox);
      const log = await waitFor(
        async (): Promise<Json> => {
          const all = await deliveries();
          return all.length > 0 ? all : undefined;
        },
        { what: 'a delivery in the delivery log' },
      );
      expect(log).toEqual([expect.objectContaining({ outcome: 'dropped', attempt: 1 })]);
      expect(receiver.received).toEqual([]);
    });

    it('webhook faults: reordering within a window', async () => {
      const { offer_request_id: id } = await activeRequest(sandbox);
      await waitFor(() => receiver.received.length === 1, { what: 'the approval webhook' });
      // A window far wider than the time between two offers, so the inversion seed 11 draws (the
      // seventh offer's delay is 900 ms shorter than the sixth's) survives a slow machine.
      await control(sandbox, 'PUT', '/faults', { seed: 11, webhooks: { reorderWindowMs: 2000 } });
      const sent: number[] = [];
      for (let i = 0; i < 8; i++) sent.push((await buyerOffer(sandbox, id)).offer_id);
      const received = await waitFor(
        (): Json => (receiver.events('new_offer').length === 8 ? receiver.events('new_offer') : undefined),
        { what: 'eight new_offer webhooks' },
      );
      const order = received.map((e: Json) => e.offer_id as number);
      expect([...order].sort((a, b) => a - b)).toEqual(sent);
      expect(order).not.toEqual(sent);
    });
  });

  describe('API faults', () => {
    it('errorRate + errorStatus on matching routes only; nothing stored', async () => {
      await control(sandbox, 'PUT', '/faults', {
        match: 'POST /offer-requests',
        errorRate: 1,
        errorStatus: 503,
      });
      const res = await call(sandbox, 'POST', '/offer-requests', createBody());
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ error: 503 });
      expect(await storedRequests()).toEqual([]);
      expect((await call(sandbox, 'GET', '/offers')).status).toBe(200);
      expect((await control(sandbox, 'GET', '/faults')).body).toMatchObject({
        match: 'POST /offer-requests',
        errorRate: 1,
      });
      await control(sandbox, 'DELETE', '/faults');
      expect((await call(sandbox, 'POST', '/offer-requests', createBody())).status).toBe(201);
    });

    it('rateLimit: the next N calls get 429 with Retry-After', async () => {
      await control(sandbox, 'PUT', '/faults', { rateLimit: { requests: 2, retryAfterSeconds: 7 } });
      for (let i = 0; i < 2; i++) {
        const res = await call(sandbox, 'GET', '/offers');
        expect(res.status).toBe(429);
        expect(res.headers.get('retry-after')).toBe('7');
        expect(res.body.error).toBe(429);
      }
      expect((await call(sandbox, 'GET', '/offers')).status).toBe(200);
    });

    it('latencyMs delays the answer', async () => {
      await control(sandbox, 'PUT', '/faults', { match: 'GET', latencyMs: 120 });
      await control(sandbox, 'DELETE', '/calls');
      expect((await call(sandbox, 'GET', '/offers')).status).toBe(200);
      expect((await call(sandbox, 'POST', '/offer-requests', createBody())).status).toBe(201);
      const calls = (await control(sandbox, 'GET', '/calls')).body;
      expect(calls[0]).toMatchObject({ method: 'GET', status: 200 });
      expect(calls[0].duration_ms).toBeGreaterThanOrEqual(100);
      expect(calls[0].fault).toBe('latency');
      expect(calls[1].fault).toBeUndefined(); // POST does not match "GET"
    });

    it('hangAfterCommitMs stores the effect, then answers late (the client times out)', async () => {
      await control(sandbox, 'PUT', '/faults', { match: 'POST /offer-requests', hangAfterCommitMs: 400 });
      const attempt = fetch(`${sandbox.baseUrl}/offer-requests`, {
        method: 'POST',
        headers: { authorization: 'e2e-agent', 'content-type': 'application/json' },
        body: JSON.stringify(createBody()),
        signal: AbortSignal.timeout(100),
      });
      await expect(attempt).rejects.toThrow();
      expect(await storedRequests()).toHaveLength(1);
      // The hung call is logged once its late answer goes out; wait for it so it cannot land in
      // a later test's calls log.
      await waitFor(
        async () => {
          const calls = (await control(sandbox, 'GET', '/calls')).body as Json[];
          return calls.some((c) => c.fault === 'hang-after-commit') || undefined;
        },
        { what: 'the hung call to be logged' },
      );
    });

    it('errorAfterCommitRate stores the effect, then answers the gateway error instead', async () => {
      await control(sandbox, 'PUT', '/faults', {
        match: 'POST /offer-requests',
        errorAfterCommitRate: 1,
        errorAfterCommitStatus: 504,
      });
      await control(sandbox, 'DELETE', '/calls');
      const res = await call(sandbox, 'POST', '/offer-requests', createBody());
      expect(res.status).toBe(504);
      expect(res.body).toMatchObject({ error: 504, message: expect.stringContaining('after storing') });
      expect(await storedRequests()).toHaveLength(1);
      const calls = (await control(sandbox, 'GET', '/calls')).body;
      expect(calls[0]).toMatchObject({ method: 'POST', status: 504, fault: 'error-after-commit' });
    });

    it('dropConnectionRate destroys the socket without an answer, before handling', async () => {
      await control(sandbox, 'PUT', '/faults', { dropConnectionRate: 1 });
      await expect(call(sandbox, 'POST', '/offer-requests', createBody())).rejects.toThrow();
      await control(sandbox, 'DELETE', '/faults');
      expect(await storedRequests()).toEqual([]);
      const calls = (await control(sandbox, 'GET', '/calls')).body;
      expect(calls.some((c: Json) => c.fault === 'drop-connection')).toBe(true);
    });

    it('the same seed gives the same faults', async () => {
      const run = async (): Promise<number[]> => {
        await control(sandbox, 'PUT', '/faults', { seed: 1234, errorRate: 0.5 });
        const statuses: number[] = [];
        for (let i = 0; i < 16; i++) statuses.push((await call(sandbox, 'GET', '/offers')).status);
        return statuses;
      };
      const first = await run();
      expect(first).toContain(500);
      expect(first).toContain(200);
      expect(await run()).toEqual(first);
    });
  });

  it('control: calls log, stats and reset', async () => {
    await activeRequest(sandbox);
    const calls = (await control(sandbox, 'GET', '/calls')).body;
    expect(calls.map((c: Json) => [c.method as string, c.path as string, c.status as number])).toContainEqual(
      ['POST', '/api/v2/offer-requests', 201],
    );
    const stats = (await control(sandbox, 'GET', '/stats')).body;
    expect(stats).toMatchObject({ offer_requests: 1, active_offer_requests: 1, offers: 0 });
    await control(sandbox, 'PUT', '/faults', { errorRate: 1 });
    await control(sandbox, 'POST', '/clock/advance', { ms: 60_000 });
    await control(sandbox, 'POST', '/reset');
    expect((await control(sandbox, 'GET', '/stats')).body).toMatchObject({
      offer_requests: 0,
      calls: 0,
      emails: 0,
    });
    expect((await control(sandbox, 'GET', '/faults')).body.errorRate).toBeUndefined();
    expect(
      Math.abs(Date.parse((await control(sandbox, 'GET', '/clock')).body.now) - Date.now()),
    ).toBeLessThan(30_000);
    expect((await call(sandbox, 'GET', '/offers')).status).toBe(200); // accounts survive
  });
});

import { waitFor } from '../../test/support/wait-for';
import { ANSWER_TOO_LARGE, CashOfferTransport, TransportFailure } from './cash-offer.transport';
import { FakeService, json } from './fake-service.testing';

const KEY = 'transport-secret-key-91c2';

async function failureOf(promise: Promise<unknown>): Promise<TransportFailure> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof TransportFailure))
    throw new Error(`expected a TransportFailure, got ${String(error)}`);
  return error;
}

describe('CashOfferTransport (axios on a keep-alive agent)', () => {
  const service = new FakeService();
  let baseUrl: string;
  let transport: CashOfferTransport;

  beforeAll(async () => {
    baseUrl = await service.start();
  });
  beforeEach(() => {
    service.seen.length = 0;
    service.connections = 0;
    transport = new CashOfferTransport(`${baseUrl}/`, KEY);
  });
  afterEach(() => transport.close());
  afterAll(() => service.stop());

  it('sends the key, the query and the JSON body as they are, and hands back status, headers and text', async () => {
    service.handler = (_r, res) => res.writeHead(429, { 'retry-after': '7' }).end('slow down {not json');
    const response = await transport.send(
      {
        method: 'POST',
        path: '/counter-offers',
        query: { limit: 5, offset: undefined, sort: 'a b' },
        body: { offer_id: 3, note: 'é' },
      },
      AbortSignal.timeout(2000),
    );
    expect(response).toMatchObject({ status: 429, body: 'slow down {not json' });
    expect(response.headers['retry-after']).toBe('7');
    expect(service.seen).toEqual([
      expect.objectContaining({
        method: 'POST',
        url: '/api/v2/counter-offers?limit=5&sort=a+b',
        auth: KEY,
        body: '{"offer_id":3,"note":"é"}',
      }),
    ]);
  });

  it('keeps one connection alive across sequential calls', async () => {
    service.handler = (_r, res) => json(res, 200, []);
    for (let i = 0; i < 5; i++)
      await transport.send({ method: 'GET', path: '/offers' }, AbortSignal.timeout(2000));
    expect(service.seen).toHaveLength(5);
    expect(service.connections).toBe(1);
  });

  // A server closes an idle connection once the time its Keep-Alive header names is up; a call sent
  // on it just then is reset, and a create or a decision cannot be sent again. The agent closes it
  // a second before.
  it("closes an idle connection before the server's Keep-Alive timeout does", async () => {
    service.keepAliveTimeoutMs = 3000;
    try {
      // The connection's end as the server sees it: the client's FIN came first (one the server
      // times out is destroyed, without an end).
      let closedByClient = false;
      service.handler = (_r, res) => {
        res.socket?.once('end', () => (closedByClient = true));
        json(res, 200, []);
      };
      await transport.send({ method: 'GET', path: '/offers' }, AbortSignal.timeout(2000));
      await waitFor(() => closedByClient, {
        what: 'the idle connection closed by the client',
        timeoutMs: 10_000,
      });
    } finally {
      service.keepAliveTimeoutMs = 5000;
    }
  });

  it('stops an answer that trickles past the deadline: one wall-clock limit, not an idle timer', async () => {
    let dripping: NodeJS.Timeout | undefined;
    service.handler = (_r, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('[');
      dripping = setInterval(() => res.write(' '), 50);
    };
    const started = Date.now();
    try {
      const failure = await failureOf(
        transport.send({ method: 'GET', path: '/offers' }, AbortSignal.timeout(300)),
      );
      expect(failure.networkCode).toBe('ETIMEDOUT');
      expect(Date.now() - started).toBeLessThan(2000);
    } finally {
      clearInterval(dripping);
    }
  });

  it('stops reading an answer longer than its limit, and the next call is answered', async () => {
    transport.close();
    transport = new CashOfferTransport(`${baseUrl}/`, KEY, 64 * 1024);
    const chunk = `[${'"x",'.repeat(4096)}`; // 16 KB a write, no end in sight
    service.handler = (_r, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      for (let i = 0; i < 16; i++) res.write(chunk);
      res.end('"x"]');
    };
    const failure = await failureOf(
      transport.send({ method: 'GET', path: '/offers' }, AbortSignal.timeout(2000)),
    );
    expect(failure.networkCode).toBe(ANSWER_TOO_LARGE);
    service.handler = (_r, res) => json(res, 200, []);
    const next = await transport.send({ method: 'GET', path: '/offers' }, AbortSignal.timeout(2000));
    expect(next).toMatchObject({ status: 200, body: '[]' });
  });

  it('fails a call in flight at once when closed', async () => {
    service.handler = () => undefined; // never answers
    const pending = failureOf(transport.send({ method: 'GET', path: '/offers' }, AbortSignal.timeout(2000)));
    await waitFor(() => service.seen.length === 1, { what: 'the request to arrive' });
    const started = Date.now();
    transport.close();
    expect((await pending).networkCode).toBe('ERR_CLIENT_CLOSED');
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('reports a refused connection by its code, and no failure carries the key', async () => {
    const closed = new FakeService();
    const url = await closed.start();
    await closed.stop();
    transport = new CashOfferTransport(url, KEY);
    const failure = await failureOf(
      transport.send({ method: 'POST', path: '/wh', body: { url: 'x' } }, AbortSignal.timeout(2000)),
    );
    expect(failure.networkCode).toBe('ECONNREFUSED');
    for (const printed of [String(failure), failure.stack ?? '', JSON.stringify(failure)])
      expect(printed).not.toContain(KEY);
  });
});

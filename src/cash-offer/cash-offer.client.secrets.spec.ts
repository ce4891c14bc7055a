import { inspect } from 'node:util';
import { ManualClock } from '../common/clock';
import { ClientLogger, CashOfferClient } from './cash-offer.client';
import { CashOfferClientOptions } from './cash-offer-client.options';
import { FakeService, json } from './fake-service.testing';

const KEY = 'sk-live-0123456789abcdef-SECRET';

// Everything that could print: the logs the client wrote, console output, and every printable form
// of every error it threw.
class Capture {
  readonly lines: string[] = [];
  readonly logger: ClientLogger = {
    log: (m: unknown) => this.lines.push(String(m)),
    warn: (m: unknown) => this.lines.push(String(m)),
    error: (m: unknown) => this.lines.push(String(m)),
  };

  error(e: unknown): void {
    const err = e as Error;
    this.lines.push(err.message, err.stack ?? '', String(err), JSON.stringify(err));
    this.lines.push(inspect(err, { depth: Infinity, showHidden: true }));
  }
}

describe('CashOfferClient keeps the API key secret', () => {
  const service = new FakeService();
  let baseUrl: string;
  const capture = new Capture();
  const consoleSpies: jest.SpyInstance[] = [];
  const clients: CashOfferClient[] = [];

  const build = (extra: Partial<CashOfferClientOptions> = {}) => {
    const client = new CashOfferClient(
      {
        brokerageId: 'b1',
        baseUrl,
        apiKey: KEY,
        timeoutMs: 300,
        retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 5 },
        breaker: { consecutiveFailures: 3, halfOpenAfterMs: 60_000 },
        ...extra,
      },
      new ManualClock(),
      capture.logger,
    );
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    baseUrl = await service.start();
    for (const method of ['log', 'warn', 'error', 'info', 'debug'] as const)
      consoleSpies.push(
        jest.spyOn(console, method).mockImplementation((...args: unknown[]) => {
          capture.lines.push(args.map((a) => (typeof a === 'string' ? a : inspect(a))).join(' '));
        }),
      );
    const stdout = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      capture.lines.push(String(chunk));
      return true;
    });
    consoleSpies.push(stdout);
  });

  afterAll(async () => {
    consoleSpies.forEach((s) => s.mockRestore());
    clients.forEach((c) => c.close());
    await service.stop();
  });

  it('never prints it, whatever fails', async () => {
    const client = build();
    const scenarios: Array<[string, (c: CashOfferClient) => Promise<unknown>]> = [
      ['401 echoing the key', async (c) => c.listOffers()],
      ['500 retried on a GET', async (c) => c.listActiveOfferRequests()],
      ['500 on a create', async (c) => c.counterOffer({ offer_id: 1, counter_offer_amount: 2 })],
      ['hang past the timeout', async (c) => c.decideOffer(1, 'accepted')],
      ['invalid record', async (c) => c.registerWebhook(`not a url ${KEY}`)],
      ['breaker open', async (c) => c.listOffers()],
    ];
    service.handler = (req, res) => {
      if (req.url.includes('/offers') && req.method === 'PATCH') return; // hang: never answer
      if (req.url.endsWith('/offers'))
        return json(res, 401, { error: 401, message: `unknown key ${req.auth}` });
      json(res, 500, { error: 500, message: `failed for ${req.auth}` });
    };
    for (const [, run] of scenarios)
      await run(client).then(
        () => undefined,
        (e: unknown) => capture.error(e),
      );
    // A refused connection, too.
    const closed = new FakeService();
    const url = await closed.start();
    await closed.stop();
    await build({ baseUrl: url })
      .listOffers()
      .catch((e: unknown) => capture.error(e));

    // The key is sent only in the Authorization header: alone, or as "Bearer <key>" after a refusal.
    expect(service.seen.every((s) => s.auth === KEY || s.auth === `Bearer ${KEY}`)).toBe(true);
    expect(service.seen.some((s) => s.auth === `Bearer ${KEY}`)).toBe(true);
    expect(capture.lines.length).toBeGreaterThan(scenarios.length * 5);
    expect(capture.lines.join('\n')).toContain('circuit opened');
    expect(capture.lines.join('\n')).toContain('[redacted]');
    for (const line of capture.lines) expect(line).not.toContain(KEY);
    expect(inspect(client, { depth: 6 })).not.toContain(KEY);
    expect(JSON.stringify(client)).not.toContain(KEY);
  });

  it('does not repeat a webhook URL (it carries the webhook secret) in errors', async () => {
    const client = build();
    service.handler = (req, res) =>
      json(res, 400, { error: 400, message: `cannot reach ${JSON.parse(req.body).url}` });
    const token = 'whsec-token-31f9';
    const errors = await Promise.all([
      client.registerWebhook(`https://hooks.example.test/${token}`).catch((e: unknown) => e),
      client.updateWebhook(`ftp://hooks.example.test/${token}`).catch((e: unknown) => e),
    ]);
    expect(errors.map((e) => (e as { code: string }).code)).toEqual(['INVALID_RECORD', 'INVALID_RECORD']);
    for (const e of errors) {
      expect(JSON.stringify(e)).toContain('[webhook url]');
      expect(inspect(e, { depth: Infinity })).not.toContain(token);
    }
  });
});

import { Writable } from 'node:stream';
import { withLogContext } from './log-context';
import { PinoLoggerService } from './pino-logger.service';
import { SecretRedactor } from './secret-redactor';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      callback();
    },
  });
  const redactor = new SecretRedactor();
  const service = new PinoLoggerService({ level: 'debug', redactor, destination: stream });
  return {
    lines,
    redactor,
    service,
    parsed: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

describe('PinoLoggerService', () => {
  it('writes Nest Logger calls as JSON with the context and the brokerage, job and run id', async () => {
    const { service, parsed } = capture();
    await withLogContext({ brokerageId: 'acme', job: 'marketplace', runId: 7 }, async () => {
      await Promise.resolve();
      // What Nest's Logger passes on: the message, then its context.
      service.log('page 1 done', 'MarketplaceSync');
    });
    service.warn('outside a run', 'MarketplaceSync');
    const [inside, outside] = parsed();
    expect(inside).toMatchObject({
      level: 30,
      msg: 'page 1 done',
      context: 'MarketplaceSync',
      brokerageId: 'acme',
      job: 'marketplace',
      runId: 7,
    });
    expect(outside).toMatchObject({ level: 40, msg: 'outside a run' });
    expect(outside.brokerageId).toBeUndefined();
  });

  it("puts Nest's own module and route lines at debug", () => {
    const { service, parsed } = capture();
    service.log('ConfigModule dependencies initialized', 'InstanceLoader');
    service.log('Mapped {/metrics, GET} route', 'RouterExplorer');
    service.log('listening on http://127.0.0.1:3000', 'Daemon');
    expect(parsed().map((l) => [l.level, l.context])).toEqual([
      [20, 'InstanceLoader'],
      [20, 'RouterExplorer'],
      [30, 'Daemon'],
    ]);
  });

  it('never writes a registered secret or a sensitive key, wherever it appears', () => {
    const { service, redactor, lines } = capture();
    const key = 'fake-cash-offer-key-9f8e7d6c5b4a';
    const token = 'fake-private-app-token-1234abcd-5678';
    redactor.register(key, token);
    service.log(`calling with key ${key}`, 'Client');
    service.error(new Error(`401 for token ${token}`), 'Client');
    service.log(
      {
        message: 'request',
        headers: { authorization: 'Bearer something-else' },
        url: `https://x/?k=${encodeURIComponent(key)}`,
      },
      'Client',
    );
    service.log({ message: 'nested', config: { apiKey: 'not-registered-value' } }, 'Client');
    service.debug('details', { token: 'zzz-unregistered' }, 'Client');
    const output = lines.join('\n');
    expect(lines).toHaveLength(5);
    for (const secret of [key, token, 'Bearer something-else', 'not-registered-value', 'zzz-unregistered']) {
      expect(output).not.toContain(secret);
    }
    expect(output).toContain('[REDACTED]');
  });
});

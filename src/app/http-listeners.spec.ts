import { request, type IncomingHttpHeaders, type RequestListener } from 'node:http';
import { WebhookListener } from './http-listeners';

function deliver(port: number): Promise<IncomingHttpHeaders> {
  return new Promise((resolve, reject) => {
    const options = { host: '127.0.0.1', port, method: 'POST', path: '/webhooks/acme/secret', agent: false };
    const req = request({ ...options, headers: { connection: 'keep-alive' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.headers));
    });
    req.on('error', reject);
    req.end('{}');
  });
}

describe('WebhookListener', () => {
  it('keeps an idle connection longer than a load balancer does', async () => {
    const listener = new WebhookListener();
    const port = await listener.listen((_req, res) => res.end('ok'), 0, '127.0.0.1');
    const headers = await deliver(port);
    expect(headers.connection).toBe('keep-alive');
    expect(headers['keep-alive']).toBe('timeout=65');
    await listener.beforeApplicationShutdown();
  });

  // Otherwise server.close() would wait out the 65 s keep-alive of a delivery answered after it began.
  it('closes at once on shutdown, ending the connection of a delivery it is still answering', async () => {
    const listener = new WebhookListener();
    let answer = (): void => undefined;
    let received = (): void => undefined;
    const inHand = new Promise<void>((resolve) => (received = resolve));
    const app: RequestListener = (_req, res) => {
      answer = () => res.end('ok');
      received();
    };
    const delivery = deliver(await listener.listen(app, 0, '127.0.0.1'));
    await inHand;
    const closed = listener.beforeApplicationShutdown();
    answer();
    await closed;
    expect((await delivery).connection).toBe('close');
  });
});

import { BeforeApplicationShutdown, Injectable } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import {
  createServer,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { isWebhookPath } from '../common/webhook-path';

// Two listeners over one Nest app: the admin one (health, metrics) stays on loopback by default, the
// webhook one may face the internet. Each serves only its own routes, so neither exposes the other's.

export { isWebhookPath };

// The service's deliveries may come through a load balancer or proxy that keeps connections to us
// open (AWS ALB idles them for 60 s, nginx upstreams similarly). If we close an idle connection
// first, the next delivery it sends is reset and answered 502 upstream: our side must outlast theirs
// (Node's default is 5 s). Headers may take no longer than the connection may idle.
export const WEBHOOK_KEEP_ALIVE_MS = 65_000;

// Requests that came in on the webhook listener; every other request came in on the admin one.
const viaWebhookListener = new WeakSet<IncomingMessage>();

function notFound(req: IncomingMessage, res: ServerResponse): void {
  const body = JSON.stringify({
    message: `Cannot ${req.method ?? 'GET'} ${(req.url ?? '/').split('?')[0]}`,
    error: 'Not Found',
    statusCode: 404,
  });
  res.writeHead(404, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}

// Installed first on the app, so the admin listener answers 404 for webhook routes.
export function keepWebhooksOffAdmin(app: NestExpressApplication): void {
  app.use((req: IncomingMessage, res: ServerResponse, next: () => void) => {
    if (isWebhookPath(req.url) && !viaWebhookListener.has(req)) return notFound(req, res);
    next();
  });
}

// The webhook listener: hands webhook routes to the app, answers 404 for anything else. Closed
// before the app shuts down, so no delivery arrives after the ledger is closed.
@Injectable()
export class WebhookListener implements BeforeApplicationShutdown {
  private server: Server | undefined;
  private closing = false;
  // Answers not yet finished: on shutdown each ends its connection rather than keep it idle for
  // WEBHOOK_KEEP_ALIVE_MS, which server.close() would wait out.
  private readonly answering = new Set<ServerResponse>();

  async listen(app: RequestListener, port: number, host: string): Promise<number> {
    const server = createServer((req, res) => {
      if (this.closing) res.setHeader('connection', 'close');
      this.answering.add(res);
      res.once('close', () => this.answering.delete(res));
      if (!isWebhookPath(req.url)) return notFound(req, res);
      viaWebhookListener.add(req);
      app(req, res);
    });
    server.keepAliveTimeout = WEBHOOK_KEEP_ALIVE_MS;
    server.headersTimeout = WEBHOOK_KEEP_ALIVE_MS + 1_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
    return (server.address() as AddressInfo).port;
  }

  async beforeApplicationShutdown(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    this.closing = true;
    for (const res of this.answering) if (!res.headersSent) res.setHeader('connection', 'close');
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    });
  }
}

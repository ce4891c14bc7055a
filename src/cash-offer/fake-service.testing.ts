import { IncomingMessage, Server, ServerResponse, createServer } from 'node:http';
import { AddressInfo } from 'node:net';

// A tiny stand-in for the service for the unit tier: each test scripts its answers.
export interface Seen {
  method: string;
  url: string;
  auth: string | undefined;
  body: string;
  at: number;
}
export type Handler = (req: Seen, res: ServerResponse, n: number) => void;

export class FakeService {
  readonly seen: Seen[] = [];
  // TCP connections accepted, to tell keep-alive reuse from a connection per call.
  connections = 0;
  handler: Handler = (_req, res) => res.writeHead(204).end();
  private readonly server: Server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const seen = {
        method: req.method ?? '',
        url: req.url ?? '',
        auth: req.headers.authorization,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      this.seen.push(seen);
      this.handler(seen, res, this.seen.length);
    });
  });

  // How long the server keeps an idle connection; its answers name it (Keep-Alive: timeout=N).
  set keepAliveTimeoutMs(ms: number) {
    this.server.keepAliveTimeout = ms;
  }

  async start(): Promise<string> {
    this.server.on('connection', () => this.connections++);
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/api/v2`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

export const json = (
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) => res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));

import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import { CONTROL_ROUTES, type FubControlTarget } from './fub-emulator.control';
import { SlidingWindow } from './fub-emulator.rate-limit';
import { API_ROUTES, type ApiContext, type ApiResult } from './fub-emulator.routes';
import type { FubState } from './fub-emulator.state';
import { FubHttpError, type Faults, type RateLimitSetting, type RequestLogEntry } from './fub-emulator.types';
import { FubWebhooks, type WebhookSettings } from './fub-emulator.webhooks';

const MAX_BODY_BYTES = 5 * 1024 * 1024;

export interface FubServerOptions {
  apiKey: string;
  systemKey: string;
  rateLimit: RateLimitSetting | null;
  webhooks?: WebhookSettings;
}

// Follow Up Boss's API v1 over node:http: Basic auth with the API key, the X-System headers, the
// sliding-window rate limit, JSON errors `{ errorMessage }`, faults and a request log.
export class FubEmulatorServer implements FubControlTarget {
  readonly server: Server;
  readonly log: RequestLogEntry[] = [];
  // Every API answer by method and status since the last reset (the log keeps the last 10,000 only).
  readonly stats = new Map<string, number>();
  faults: Faults = { errorRate: 0, errorStatus: 500, burst429: 0, latencyMs: 0 };
  readonly webhooks: FubWebhooks;
  private readonly window: SlidingWindow;

  constructor(
    private readonly state: FubState,
    private readonly options: FubServerOptions,
  ) {
    this.window = new SlidingWindow(options.rateLimit);
    this.webhooks = new FubWebhooks(options.systemKey, options.webhooks);
    state.onChange = (resource, action, record, before) =>
      this.webhooks.recordChange(resource, action, record, before);
    this.server = createServer((req, res) => void this.handle(req, res));
    this.server.keepAliveTimeout = 30_000;
  }

  get rateLimit(): RateLimitSetting | null {
    return this.window.setting;
  }
  set rateLimit(value: RateLimitSetting | null) {
    this.window.setting = value;
    this.window.reset();
  }

  reset(): void {
    this.state.reset();
    this.webhooks.reset();
    this.log.length = 0;
    this.stats.clear();
    this.faults = { errorRate: 0, errorStatus: 500, burst429: 0, latencyMs: 0 };
    this.rateLimit = this.options.rateLimit;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = Date.now();
    const url = new URL(req.url ?? '/', 'http://emulator');
    const path = url.pathname.length > 1 ? url.pathname.replace(/\/$/, '') : url.pathname;
    const method = req.method ?? 'GET';
    let result: ApiResult;
    let headers: Record<string, string> = {};
    try {
      const ctx: ApiContext = {
        params: [],
        query: url.searchParams,
        body: await readJson(req),
        state: this.state,
        webhooks: this.webhooks,
        system: this.systemOf(req),
      };
      if (path.startsWith('/__control/')) {
        const control = CONTROL_ROUTES.find((r) => r.method === method && r.pattern.test(path));
        if (!control) throw new FubHttpError(404, `No control route ${method} ${path}`);
        ctx.params = control.pattern.exec(path)!.slice(1).map(decodeURIComponent);
        send(res, control.handle(ctx, this), {});
        return;
      }
      this.authenticate(req);
      const admission = this.window.admit(this.options.apiKey, ctx.system !== undefined, Date.now());
      headers = admission.headers;
      if (!admission.ok)
        throw new FubHttpError(429, 'Too many requests. Please wait before making more requests.', headers);
      const route = API_ROUTES.find((r) => r.method === method && r.pattern.test(path));
      if (!route) throw new FubHttpError(404, `Unknown resource ${method} ${path}`);
      if (this.faults.latencyMs > 0) await new Promise((r) => setTimeout(r, this.faults.latencyMs));
      this.injectFault(headers);
      ctx.params = route.pattern.exec(path)!.slice(1).map(decodeURIComponent);
      result = route.handle(ctx);
    } catch (error) {
      if (error instanceof FubHttpError) {
        result = { status: error.status, body: { errorMessage: error.message } };
        headers = { ...headers, ...error.headers };
      } else {
        result = { status: 500, body: { errorMessage: 'Internal error' } };
      }
    }
    send(res, result, headers);
    const key = `${method} ${result.status}`;
    this.stats.set(key, (this.stats.get(key) ?? 0) + 1);
    this.log.push({
      method,
      path,
      status: result.status,
      ms: Date.now() - started,
      at: new Date().toISOString(),
    });
    if (this.log.length > 10_000) this.log.splice(0, this.log.length - 10_000);
  }

  // HTTP Basic, the API key as user name and any password (crm-apis.md B1/B6).
  private authenticate(req: IncomingMessage): void {
    const header = req.headers.authorization ?? '';
    const match = /^Basic\s+(.+)$/i.exec(header);
    const user = match ? Buffer.from(match[1], 'base64').toString('utf8').split(':')[0] : '';
    if (!same(user, this.options.apiKey))
      throw new FubHttpError(401, 'Unauthorized: the API key is not valid.');
  }

  // A registered system sends its name and key; without them FUB halves the limit (B4) and the
  // call cannot manage webhooks.
  private systemOf(req: IncomingMessage): string | undefined {
    const system = req.headers['x-system'];
    const key = req.headers['x-system-key'];
    const registered =
      typeof system === 'string' &&
      system !== '' &&
      typeof key === 'string' &&
      same(key, this.options.systemKey);
    return registered ? system : undefined;
  }

  private injectFault(headers: Record<string, string>): void {
    if (this.faults.burst429 > 0) {
      this.faults.burst429--;
      throw new FubHttpError(429, 'Too many requests. Please wait before making more requests.', {
        ...headers,
        'X-RateLimit-Remaining': '0',
        'Retry-After': '1',
      });
    }
    if (this.faults.errorRate > 0 && Math.random() < this.faults.errorRate)
      throw new FubHttpError(this.faults.errorStatus, 'Injected fault');
  }
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new FubHttpError(413, 'Request body too large');
    chunks.push(chunk as Buffer);
  }
  if (size === 0) return undefined;
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    throw new FubHttpError(400, 'Invalid JSON body');
  }
}

function send(res: ServerResponse, result: ApiResult, headers: Record<string, string>): void {
  const body = result.body === undefined ? '' : JSON.stringify(result.body);
  res.writeHead(result.status, {
    ...headers,
    ...(body ? { 'content-type': 'application/json; charset=utf-8' } : {}),
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}

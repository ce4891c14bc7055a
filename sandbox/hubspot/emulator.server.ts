import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { ASSOCIATION_ROUTES } from './emulator.associations.routes';
import { CONTROL_ROUTES } from './emulator.control.routes';
import type { ControlTarget } from './emulator.control.routes';
import { HubSpotHttpError, errorBody } from './emulator.errors';
import { OBJECT_ROUTES } from './emulator.objects.routes';
import { PIPELINE_ROUTES } from './emulator.pipelines.routes';
import { PROPERTY_ROUTES } from './emulator.properties.routes';
import { RollingWindow } from './emulator.rate-limit';
import { ALL_SCOPES, missingScope, requiredScope } from './emulator.scopes';
import type { Route, RouteContext, RouteResult } from './emulator.route';
import { SEARCH_ROUTES } from './emulator.search.routes';
import type { EmulatorState } from './emulator.state';
import type { Faults, RateLimitSetting, RequestLogEntry } from './emulator.types';

const ROUTES: Route[] = [
  ...SEARCH_ROUTES,
  ...OBJECT_ROUTES,
  ...ASSOCIATION_ROUTES,
  ...PROPERTY_ROUTES,
  ...PIPELINE_ROUTES,
];
const MAX_BODY_BYTES = 10 * 1024 * 1024;
const DAILY_LIMIT = 1_000_000;
const PORTAL_ID = 12345678;
// Private apps read their token's scopes here (HubSpot's private-apps docs).
const TOKEN_INFO_PATH = '/oauth/v2/private-apps/get/access-token-info';

export interface EmulatorServerOptions {
  token: string;
  // Scopes of `token` (default: every scope the emulator knows).
  scopes?: readonly string[];
  // More private-app tokens with their own scopes.
  tokens?: { token: string; scopes: readonly string[] }[];
  rateLimit: RateLimitSetting | null;
  searchPerSecond: number | null;
  searchIndexLagMs: number;
}

// HubSpot's public API surface over node:http, with auth, rate limits, faults and a request log.
export class EmulatorServer implements ControlTarget {
  readonly server: Server;
  readonly log: RequestLogEntry[] = [];
  faults: Faults = { errorRate: 0, errorStatus: 500, burst429: 0, latencyMs: 0 };
  private readonly general: RollingWindow;
  private readonly search: RollingWindow;
  private dailyUsed = 0;
  // Private-app token -> its scopes.
  readonly tokens = new Map<string, readonly string[]>();

  constructor(
    private readonly state: EmulatorState,
    private readonly options: EmulatorServerOptions,
  ) {
    this.general = new RollingWindow(options.rateLimit);
    this.search = new RollingWindow(perSecond(options.searchPerSecond));
    state.objects.searchIndexLagMs = options.searchIndexLagMs;
    this.resetTokens();
    this.server = createServer((req, res) => void this.handle(req, res));
    this.server.keepAliveTimeout = 30_000;
  }

  get rateLimit(): RateLimitSetting | null {
    return this.general.setting;
  }
  set rateLimit(value: RateLimitSetting | null) {
    this.general.setting = value;
    this.general.reset();
  }
  get searchPerSecond(): number | null {
    return this.search.setting?.max ?? null;
  }
  set searchPerSecond(value: number | null) {
    this.search.setting = perSecond(value);
    this.search.reset();
  }

  // Back to a fresh portal with the settings the emulator was started with.
  reset(): void {
    this.state.reset();
    this.log.length = 0;
    this.faults = { errorRate: 0, errorStatus: 500, burst429: 0, latencyMs: 0 };
    this.rateLimit = this.options.rateLimit;
    this.searchPerSecond = this.options.searchPerSecond;
    this.state.objects.searchIndexLagMs = this.options.searchIndexLagMs;
    this.resetTokens();
  }

  private resetTokens(): void {
    this.tokens.clear();
    this.tokens.set(this.options.token, this.options.scopes ?? ALL_SCOPES);
    for (const t of this.options.tokens ?? []) this.tokens.set(t.token, t.scopes);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = Date.now();
    const url = new URL(req.url ?? '/', 'http://emulator');
    const path = url.pathname.length > 1 ? url.pathname.replace(/\/$/, '') : url.pathname;
    const method = req.method ?? 'GET';
    let result: RouteResult;
    let headers: Record<string, string> = {};
    try {
      const body = await readJson(req);
      const ctx: RouteContext = {
        params: [],
        query: url.searchParams,
        body,
        state: this.state,
        now: Date.now(),
      };
      if (path.startsWith('/__control/')) {
        const control = CONTROL_ROUTES.find((r) => r.method === method && r.pattern.test(path));
        if (!control)
          throw new HubSpotHttpError(404, 'OBJECT_NOT_FOUND', `No control route ${method} ${path}`);
        ctx.params = control.pattern.exec(path)!.slice(1).map(decodeURIComponent);
        send(res, control.handle(ctx, this), {});
        return;
      }
      const scopes = this.authenticate(req);
      if (method === 'POST' && path === TOKEN_INFO_PATH) {
        result = this.tokenInfo(body);
        send(res, result, {});
        this.record(method, path, result.status, started);
        return;
      }
      const route = ROUTES.find((r) => r.method === method && r.pattern.test(path));
      if (!route)
        throw new HubSpotHttpError(404, 'OBJECT_NOT_FOUND', `Unable to find a route for ${method} ${path}`);
      const scope = requiredScope(method, path);
      if (scope && !scopes.includes(scope)) throw missingScope(scope);
      if (this.faults.latencyMs > 0) await sleep(this.faults.latencyMs);
      headers = this.admit(route, Date.now());
      this.injectFault();
      ctx.params = route.pattern.exec(path)!.slice(1).map(decodeURIComponent);
      ctx.now = Date.now();
      result = route.handle(ctx);
    } catch (error) {
      result = failure(error);
      if (error instanceof RateLimited) headers = error.headers;
    }
    send(res, result, headers);
    this.record(method, path, result.status, started);
  }

  private record(method: string, path: string, status: number, started: number): void {
    this.log.push({
      method,
      path,
      status,
      time: new Date(started).toISOString(),
      durationMs: Date.now() - started,
    });
  }

  // What HubSpot tells a private app about a token: its portal and scopes.
  private tokenInfo(body: unknown): RouteResult {
    const tokenKey = (body as { tokenKey?: unknown } | undefined)?.tokenKey;
    const scopes = typeof tokenKey === 'string' ? this.tokens.get(tokenKey) : undefined;
    if (!scopes) throw new HubSpotHttpError(404, 'OBJECT_NOT_FOUND', 'Access token not found');
    return { status: 200, body: { userId: 1, hubId: PORTAL_ID, appId: 1, scopes: [...scopes] } };
  }

  private authenticate(req: IncomingMessage): readonly string[] {
    const header = req.headers.authorization;
    if (!header) {
      throw new HubSpotHttpError(
        401,
        'INVALID_AUTHENTICATION',
        'Authentication credentials not found. This API supports OAuth 2.0 authentication and you can find more details at https://developers.hubspot.com/docs/methods/auth/oauth-overview',
      );
    }
    const scopes = header.startsWith('Bearer ') ? this.tokens.get(header.slice(7)) : undefined;
    if (!scopes) {
      throw new HubSpotHttpError(
        401,
        'INVALID_AUTHENTICATION',
        'Authentication credentials not found. This API supports OAuth 2.0 authentication and you can find more details at https://developers.hubspot.com/docs/methods/auth/oauth-overview',
      );
    }
    return scopes;
  }

  // Counts the request against the portal's limits; search has its own secondly limit and no headers.
  private admit(route: Route, now: number): Record<string, string> {
    if (this.faults.burst429 > 0) {
      this.faults.burst429--;
      throw new RateLimited('TEN_SECONDLY_ROLLING', this.headers(now));
    }
    if (route.limit === 'search') {
      if (!this.search.tryTake(now)) throw new RateLimited('SECONDLY', {});
      return {};
    }
    if (!this.general.tryTake(now)) throw new RateLimited('TEN_SECONDLY_ROLLING', this.headers(now));
    this.dailyUsed++;
    return this.headers(now);
  }

  private headers(now: number): Record<string, string> {
    const setting = this.general.setting;
    return {
      'X-HubSpot-RateLimit-Daily': String(DAILY_LIMIT),
      'X-HubSpot-RateLimit-Daily-Remaining': String(Math.max(0, DAILY_LIMIT - this.dailyUsed)),
      ...(setting
        ? {
            'X-HubSpot-RateLimit-Interval-Milliseconds': String(setting.intervalMs),
            'X-HubSpot-RateLimit-Max': String(setting.max),
            'X-HubSpot-RateLimit-Remaining': String(this.general.remaining(now)),
          }
        : {}),
    };
  }

  private injectFault(): void {
    if (this.faults.errorRate > 0 && Math.random() < this.faults.errorRate) {
      const status = this.faults.errorStatus || 500;
      throw new HubSpotHttpError(status, 'INTERNAL_ERROR', `Injected fault: HTTP ${status}`);
    }
  }
}

class RateLimited extends Error {
  constructor(
    readonly policy: 'TEN_SECONDLY_ROLLING' | 'SECONDLY',
    readonly headers: Record<string, string>,
  ) {
    super(policy);
  }
}

// 429 bodies carry the fields the SDK's retry decorator reads (policyName, the secondly message).
function failure(error: unknown): RouteResult {
  if (error instanceof RateLimited) {
    const message =
      error.policy === 'SECONDLY'
        ? 'You have reached your secondly limit.'
        : 'You have reached your ten_secondly_rolling limit.';
    return {
      status: 429,
      body: {
        ...errorBody('RATE_LIMITS', message, { errorType: 'RATE_LIMIT', policyName: error.policy }),
        requestId: randomId(),
      },
    };
  }
  if (error instanceof HubSpotHttpError) return { status: error.status, body: error.body() };
  const message = error instanceof Error ? error.message : String(error);
  return { status: 500, body: errorBody('INTERNAL_ERROR', `Internal error: ${message}`) };
}

function send(res: ServerResponse, result: RouteResult, headers: Record<string, string>): void {
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  if (result.status === 204 || result.body === undefined) {
    res.writeHead(result.status).end();
    return;
  }
  const text = JSON.stringify(result.body);
  res.writeHead(result.status, {
    'Content-Type': 'application/json;charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new HubSpotHttpError(413, 'VALIDATION_ERROR', 'Request body too large');
    chunks.push(chunk);
  }
  if (size === 0) return undefined;
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    throw new HubSpotHttpError(
      400,
      'VALIDATION_ERROR',
      'Invalid input JSON on line 1: the body is not valid JSON',
    );
  }
}

function perSecond(value: number | null): RateLimitSetting | null {
  return value === null ? null : { max: value, intervalMs: 1000 };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function randomId(): string {
  return Math.random().toString(16).slice(2) + Date.now().toString(16);
}

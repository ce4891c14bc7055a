import { IncomingMessage, ServerResponse } from 'node:http';
import { Logger } from '@nestjs/common';
import { ExpirySweeper } from '../expiry.sweeper';
import { FaultInjector } from '../fault.injector';
import { MediaSigner } from '../media.signer';
import { SandboxClock } from '../sandbox.clock';
import { ApiError } from '../sandbox.errors';
import { SandboxStore } from '../sandbox.store';
import { SandboxAccount } from '../sandbox.types';
import { readJsonBody } from './body.reader';
import { Reply, Router } from './router';

export const API_PREFIX = '/api/v2';
export const CONTROL_PREFIX = '/__control';
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
// A small grey JPEG-ish placeholder is enough: callers only check that the URL answers.
const PLACEHOLDER_PHOTO = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" width="4" height="3"><rect width="4" height="3" fill="#999"/></svg>',
);

export interface DispatcherDeps {
  store: SandboxStore;
  clock: SandboxClock;
  faults: FaultInjector;
  signer: MediaSigner;
  sweeper: ExpirySweeper;
  api: Router;
  control: Router;
  openApi: () => unknown;
}

function send(res: ServerResponse, reply: Reply): void {
  if (res.destroyed || res.headersSent) return;
  const headers: Record<string, string | number> = { ...reply.headers };
  if ((reply.body === undefined && reply.json === undefined) || reply.status === 204) {
    res.writeHead(reply.status, headers);
    res.end();
    return;
  }
  const payload = reply.json ?? JSON.stringify(reply.body);
  headers['content-type'] = 'application/json; charset=utf-8';
  headers['content-length'] = Buffer.byteLength(payload);
  res.writeHead(reply.status, headers);
  res.end(payload);
}

function errorReply(e: unknown, logger: Logger): Reply {
  if (e instanceof ApiError)
    return { status: e.status, body: { error: e.status, message: e.message }, headers: e.headers };
  logger.error(`unexpected sandbox failure: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  return { status: 500, body: { error: 500, message: 'the sandbox failed unexpectedly; see its log' } };
}

// Reads the key from `Authorization: <key>` or `Authorization: Bearer <key>`.
function callerOf(req: IncomingMessage, store: SandboxStore): SandboxAccount {
  const header = req.headers.authorization;
  if (!header) throw new ApiError(401, 'the Authorization header with your API key is missing');
  const key = header.replace(/^Bearer\s+/i, '').trim();
  const account = store.accountsByKey.get(key);
  if (!account) throw new ApiError(401, 'the API key in the Authorization header is not valid');
  return account;
}

// Routes every request: the control API, signed media, the OpenAPI document and the API itself
// (auth, faults, body, handler, call log).
export interface Dispatcher {
  handle(req: IncomingMessage, res: ServerResponse): void;
  // Ends the waits of latency and hang faults so a closed sandbox leaves no timers behind.
  close(): void;
}

export function createDispatcher(d: DispatcherDeps): Dispatcher {
  const logger = new Logger('CashOfferSandbox');
  const waits = new Map<NodeJS.Timeout, () => void>();
  const wait = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const timer = setTimeout(() => {
        waits.delete(timer);
        resolve();
      }, ms);
      waits.set(timer, resolve);
    });

  async function control(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const path = url.pathname.slice(CONTROL_PREFIX.length) || '/';
    try {
      const match = d.control.match(req.method ?? 'GET', path);
      if (!match) throw new ApiError(404, `no control route ${req.method} ${url.pathname}`);
      const body = BODY_METHODS.has(req.method ?? '') ? await readJsonBody(req) : undefined;
      const ctx = { method: req.method ?? 'GET', path, params: match.params, query: url.searchParams, body };
      send(res, await match.handler({ ...ctx, caller: undefined as unknown as SandboxAccount }));
    } catch (e) {
      send(res, errorReply(e, logger));
    }
  }

  function media(res: ServerResponse, url: URL): void {
    const token = url.pathname.slice('/media/'.length);
    const check = d.signer.check(token, url.searchParams.get('expires'), url.searchParams.get('sig'));
    if (check !== 'valid') {
      const message =
        check === 'expired'
          ? 'this signed media URL has expired (they are valid 10 minutes)'
          : 'this media URL is not signed correctly';
      send(res, { status: 403, body: { error: 403, message } });
      return;
    }
    res.writeHead(200, { 'content-type': 'image/svg+xml', 'content-length': PLACEHOLDER_PHOTO.length });
    res.end(PLACEHOLDER_PHOTO);
  }

  async function api(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const started = performance.now();
    const method = req.method ?? 'GET';
    const path = url.pathname.slice(API_PREFIX.length) || '/';
    let fault: string | undefined;
    let reply: Reply;
    try {
      const caller = callerOf(req, d.store);
      const decision = d.faults.decide(method, path);
      if (decision.kind === 'drop') {
        d.store.logCall({
          method,
          path: url.pathname,
          status: 0,
          at: d.clock.nowIso(),
          duration_ms: 0,
          fault: 'drop-connection',
        });
        req.socket.destroy();
        return;
      }
      if (decision.kind === 'rate-limit') {
        fault = 'rate-limit';
        throw new ApiError(429, 'too many requests; retry after the time in Retry-After', {
          'retry-after': String(decision.retryAfterSeconds),
        });
      }
      if (decision.kind === 'error') {
        fault = 'error';
        throw new ApiError(decision.status, `injected fault: the service answered ${decision.status}`);
      }
      if (decision.latencyMs > 0) {
        fault = 'latency';
        await wait(decision.latencyMs);
      }
      const match = d.api.match(method, path);
      if (!match) {
        const allowed = d.api.methodsFor(path);
        throw new ApiError(
          404,
          allowed.length > 0
            ? `${method} is not served on ${url.pathname}; use ${allowed.join(' or ')}`
            : `no endpoint ${method} ${url.pathname}`,
        );
      }
      const body = BODY_METHODS.has(method) ? await readJsonBody(req) : undefined;
      d.sweeper.sweepIfDue();
      reply = await match.handler({
        method,
        path,
        params: match.params,
        query: url.searchParams,
        body,
        caller,
      });
      if (decision.hangAfterCommitMs > 0) {
        fault = 'hang-after-commit';
        await wait(decision.hangAfterCommitMs);
      }
    } catch (e) {
      reply = errorReply(e, logger);
    }
    d.store.logCall({
      method,
      path: url.pathname,
      status: reply.status,
      at: d.clock.nowIso(),
      duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
      fault,
    });
    send(res, reply);
  }

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const url = new URL(req.url ?? '/', 'http://sandbox.local');
    const pathname = url.pathname;
    let work: Promise<void> | void;
    if (pathname === CONTROL_PREFIX || pathname.startsWith(`${CONTROL_PREFIX}/`))
      work = control(req, res, url);
    else if (pathname.startsWith('/media/') && req.method === 'GET') work = media(res, url);
    else if (req.method === 'GET' && pathname.replace(/\/+$/, '') === `${API_PREFIX}/openapi.json`)
      work = send(res, { status: 200, body: d.openApi() });
    else if (pathname === API_PREFIX || pathname.startsWith(`${API_PREFIX}/`)) work = api(req, res, url);
    else
      work = send(res, {
        status: 404,
        body: { error: 404, message: `nothing is served at ${pathname}; the API is under ${API_PREFIX}` },
      });
    if (work) work.catch((e: unknown) => send(res, errorReply(e, logger)));
  };
  return {
    handle,
    close(): void {
      for (const [timer, resolve] of waits) {
        clearTimeout(timer);
        resolve();
      }
      waits.clear();
    },
  };
}

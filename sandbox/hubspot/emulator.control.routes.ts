import { badRequest, notFound } from './emulator.errors';
import type { RouteContext, RouteResult } from './emulator.route';
import { objectType, record } from './emulator.route';
import type { Faults, RateLimitSetting, RequestLogEntry } from './emulator.types';
import { isAccountTier, tierRateLimit } from './emulator.rate-limit';
import { toWire } from './emulator.wire';

// What the control API can change on the running server.
export interface ControlTarget {
  faults: Faults;
  log: RequestLogEntry[];
  rateLimit: RateLimitSetting | null;
  searchPerSecond: number | null;
  tokens: Map<string, readonly string[]>;
  reset(): void;
}

export interface ControlRoute {
  method: string;
  pattern: RegExp;
  handle(ctx: RouteContext, target: ControlTarget): RouteResult;
}

function settings(ctx: RouteContext, t: ControlTarget): Record<string, unknown> {
  return {
    rateLimit: t.rateLimit,
    searchPerSecond: t.searchPerSecond,
    searchIndexLagMs: ctx.state.objects.searchIndexLagMs,
  };
}

function putFaults(ctx: RouteContext, t: ControlTarget): RouteResult {
  const body = record(ctx.body, 'faults');
  const num = (key: keyof Faults): void => {
    if (body[key] === undefined) return;
    if (typeof body[key] !== 'number' || body[key] < 0)
      throw badRequest(`${key} must be a non-negative number`);
    t.faults[key] = body[key];
  };
  (['errorRate', 'errorStatus', 'burst429', 'latencyMs'] as const).forEach(num);
  return { status: 200, body: t.faults };
}

function putSettings(ctx: RouteContext, t: ControlTarget): RouteResult {
  const body = record(ctx.body, 'settings');
  if (body.tier !== undefined) {
    if (!isAccountTier(body.tier))
      throw badRequest(`tier must be free, starter, professional, enterprise or api-limit-increase`);
    t.rateLimit = tierRateLimit(body.tier);
  }
  if (body.rateLimit !== undefined) {
    if (body.rateLimit === null) t.rateLimit = null;
    else {
      const rl = record(body.rateLimit, 'rateLimit');
      t.rateLimit = { max: Number(rl.max), intervalMs: Number(rl.intervalMs) };
    }
  }
  if (body.searchPerSecond !== undefined)
    t.searchPerSecond = body.searchPerSecond === null ? null : Number(body.searchPerSecond);
  if (body.searchIndexLagMs !== undefined) ctx.state.objects.searchIndexLagMs = Number(body.searchIndexLagMs);
  return { status: 200, body: settings(ctx, t) };
}

// Adds or replaces a private-app token with the scopes it was granted: `{ token, scopes }`.
function putToken(ctx: RouteContext, t: ControlTarget): RouteResult {
  const body = record(ctx.body, 'token');
  if (typeof body.token !== 'string' || body.token === '') throw badRequest('token is required');
  if (!Array.isArray(body.scopes)) throw badRequest('scopes must be an array of scope names');
  t.tokens.set(body.token, body.scopes.map(String));
  return { status: 200, body: { token: body.token, scopes: t.tokens.get(body.token) } };
}

// Creates many objects in one call, without rate limits: `{ type, count, properties, indexed }`.
// "{i}" in a property value becomes the object's index; `modifiedAt` pins every record to one time.
function seed(ctx: RouteContext): RouteResult {
  const body = record(ctx.body, 'seed');
  const type = objectType(String(body.type));
  const count = Number(body.count);
  if (!Number.isInteger(count) || count < 1 || count > 200_000) throw badRequest('count must be 1..200000');
  const template = record(body.properties ?? {}, 'properties');
  const at = typeof body.modifiedAt === 'string' ? Date.parse(body.modifiedAt) : ctx.now;
  const ids: string[] = [];
  const start = Number(body.startIndex ?? 0);
  // `visibleAfterMs`: search shows these records only that long from now, though their timestamp
  // is `modifiedAt` (HubSpot's index lag varies, so a record can show after later-stamped ones).
  const indexAt = typeof body.visibleAfterMs === 'number' ? ctx.now + body.visibleAfterMs : undefined;
  for (let i = start; i < start + count; i++) {
    const props = Object.fromEntries(
      Object.entries(template).map(([k, v]) => [k, String(v as string).replace(/\{i\}/g, String(i))]),
    );
    const obj = ctx.state.objects.create(type, ctx.state.objects.validate(type, props), at);
    if (indexAt !== undefined) obj.indexAt = indexAt;
    ids.push(obj.id);
  }
  return { status: 201, body: { created: ids.length, firstId: ids[0], lastId: ids[ids.length - 1] } };
}

function listObjects(ctx: RouteContext): RouteResult {
  const type = objectType(ctx.params[0]);
  const limit = Number(ctx.query.get('limit') ?? 100);
  const offset = Number(ctx.query.get('offset') ?? 0);
  const all = [...ctx.state.objects.all(type).values()];
  const results = all
    .slice(offset, offset + limit)
    .map((o) => ({ ...toWire(o, o, Object.keys(o.properties)) }));
  return { status: 200, body: { total: all.length, results } };
}

function getObject(ctx: RouteContext): RouteResult {
  const type = objectType(ctx.params[0]);
  const obj = ctx.state.objects.get(type, ctx.params[1]);
  if (!obj) throw notFound(`${type} ${ctx.params[1]} does not exist`);
  const associations = Object.fromEntries(
    (['contacts', 'deals', 'notes'] as const).map((to) => [
      to,
      ctx.state.associations.list(type, obj.id, to).map(([id]) => id),
    ]),
  );
  return { status: 200, body: { ...toWire(obj, obj, Object.keys(obj.properties)), associations } };
}

export const CONTROL_ROUTES: ControlRoute[] = [
  { method: 'POST', pattern: /^\/__control\/reset$/, handle: (_ctx, t) => (t.reset(), { status: 204 }) },
  { method: 'GET', pattern: /^\/__control\/faults$/, handle: (_ctx, t) => ({ status: 200, body: t.faults }) },
  { method: 'PUT', pattern: /^\/__control\/faults$/, handle: putFaults },
  {
    method: 'GET',
    pattern: /^\/__control\/requests$/,
    handle: (_ctx, t) => ({ status: 200, body: { requests: t.log } }),
  },
  {
    method: 'DELETE',
    pattern: /^\/__control\/requests$/,
    handle: (_ctx, t) => ((t.log.length = 0), { status: 204 }),
  },
  {
    method: 'GET',
    pattern: /^\/__control\/settings$/,
    handle: (ctx, t) => ({ status: 200, body: settings(ctx, t) }),
  },
  { method: 'PUT', pattern: /^\/__control\/settings$/, handle: putSettings },
  { method: 'PUT', pattern: /^\/__control\/tokens$/, handle: putToken },
  { method: 'POST', pattern: /^\/__control\/seed$/, handle: seed },
  { method: 'GET', pattern: /^\/__control\/objects\/([^/]+)$/, handle: listObjects },
  { method: 'GET', pattern: /^\/__control\/objects\/([^/]+)\/([^/]+)$/, handle: getObject },
];

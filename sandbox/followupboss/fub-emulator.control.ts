import type { ApiContext, ApiResult } from './fub-emulator.routes';
import { personView } from './fub-emulator.routes';
import { fubTime } from './fub-emulator.state';
import { badRequest, type Faults, type RateLimitSetting, type RequestLogEntry } from './fub-emulator.types';
import { WEBHOOK_CONTROL_ROUTES } from './fub-emulator.webhooks.control';

// What the control API can change on the running server.
export interface FubControlTarget {
  faults: Faults;
  log: RequestLogEntry[];
  stats: Map<string, number>;
  rateLimit: RateLimitSetting | null;
  reset(): void;
}

export interface ControlRoute {
  method: string;
  pattern: RegExp;
  handle(ctx: ApiContext, target: FubControlTarget): ApiResult;
}

function object(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw badRequest('a JSON object is required');
  return body as Record<string, unknown>;
}

const NO_FAULTS: Faults = { errorRate: 0, errorStatus: 500, burst429: 0, latencyMs: 0 };

// /__control: fault injection, settings, the request log and the account's contents, outside the
// rate limit and without auth (the emulator binds 127.0.0.1).
export const CONTROL_ROUTES: ControlRoute[] = [
  ...WEBHOOK_CONTROL_ROUTES,
  {
    method: 'PUT',
    pattern: /^\/__control\/faults$/,
    handle: (ctx, t) => {
      const body = object(ctx.body);
      for (const key of ['errorRate', 'errorStatus', 'burst429', 'latencyMs'] as const) {
        if (body[key] === undefined) continue;
        if (typeof body[key] !== 'number' || body[key] < 0)
          throw badRequest(`${key} must be a non-negative number`);
        t.faults[key] = body[key];
      }
      return { status: 200, body: t.faults };
    },
  },
  {
    method: 'DELETE',
    pattern: /^\/__control\/faults$/,
    handle: (_ctx, t) => {
      t.faults = { ...NO_FAULTS };
      return { status: 200, body: t.faults };
    },
  },
  {
    method: 'GET',
    pattern: /^\/__control\/settings$/,
    handle: (ctx, t) => ({
      status: 200,
      body: { rateLimit: t.rateLimit, clockOffsetMs: ctx.state.offsetMs },
    }),
  },
  {
    method: 'PUT',
    pattern: /^\/__control\/settings$/,
    handle: (ctx, t) => {
      const body = object(ctx.body);
      if (body.rateLimit !== undefined) {
        const rl = body.rateLimit === null ? null : object(body.rateLimit);
        t.rateLimit = rl ? { max: Number(rl.max), windowMs: Number(rl.windowMs ?? 10_000) } : null;
      }
      // Moves the account's clock, so `updated` times can be made to differ without waiting.
      if (typeof body.advanceClockMs === 'number') ctx.state.offsetMs += body.advanceClockMs;
      return { status: 200, body: { rateLimit: t.rateLimit, clockOffsetMs: ctx.state.offsetMs } };
    },
  },
  { method: 'GET', pattern: /^\/__control\/log$/, handle: (_ctx, t) => ({ status: 200, body: t.log }) },
  {
    // API answers by "METHOD status" since the last reset (the log keeps the last 10,000 only).
    method: 'GET',
    pattern: /^\/__control\/stats$/,
    handle: (_ctx, t) => ({ status: 200, body: Object.fromEntries(t.stats) }),
  },
  {
    method: 'POST',
    pattern: /^\/__control\/reset$/,
    handle: (_ctx, t) => {
      t.reset();
      return { status: 200, body: { reset: true } };
    },
  },
  {
    method: 'GET',
    pattern: /^\/__control\/(deals|people|notes)$/,
    handle: (ctx) => {
      const resource = ctx.params[0] as 'deals' | 'people' | 'notes';
      const all = [...ctx.state.records[resource].values()].map((r) =>
        resource === 'people'
          ? personView(r, 'allFields')
          : { id: r.id, created: r.created, updated: r.updated, ...r.fields },
      );
      return { status: 200, body: all };
    },
  },
  {
    // Many deals in one call, outside the rate limit: `{ count, fields }`, "{i}" in a text value
    // becomes the record's index.
    method: 'POST',
    pattern: /^\/__control\/seed\/deals$/,
    handle: (ctx) => {
      const body = object(ctx.body);
      const count = Number(body.count);
      if (!Number.isInteger(count) || count < 1 || count > 200_000)
        throw badRequest('count must be 1..200000');
      const template = object(body.fields ?? {});
      const ids: number[] = [];
      for (let i = 0; i < count; i++) {
        const fields = Object.fromEntries(
          Object.entries(template).map(([k, v]) => [
            k,
            typeof v === 'string' ? v.replace(/\{i\}/g, String(i)) : v,
          ]),
        );
        ids.push(ctx.state.create('deals', fields).id);
      }
      return {
        status: 201,
        body: {
          created: ids.length,
          firstId: ids[0],
          lastId: ids[ids.length - 1],
          at: fubTime(ctx.state.now()),
        },
      };
    },
  },
];

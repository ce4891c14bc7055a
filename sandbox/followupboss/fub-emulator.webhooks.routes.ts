import { MAX_LIMIT } from './fub-emulator.list';
import { id, object, type ApiContext, type ApiRoute } from './fub-emulator.route';
import { badRequest, notFound } from './fub-emulator.types';
import { FUB_WEBHOOK_EVENTS, type FubWebhookEvent, type StoredWebhook } from './fub-emulator.webhooks';

// FUB allows at most two webhooks per event for one system (crm-apis.md B6).
const MAX_PER_EVENT = 2;

function view(hook: StoredWebhook): Record<string, unknown> {
  return { id: hook.id, status: hook.status, event: hook.event, url: hook.url };
}

// Webhooks belong to the registered system that made them; a call without one cannot manage any.
function system(ctx: ApiContext): string {
  if (!ctx.system) throw badRequest('X-System and a valid X-System-Key are required to manage webhooks');
  return ctx.system;
}

function own(ctx: ApiContext): StoredWebhook {
  const hook = ctx.webhooks.hooks.get(id(ctx.params[0]));
  if (!hook || hook.system !== system(ctx)) throw notFound(`Webhook ${ctx.params[0]}`);
  return hook;
}

function event(value: unknown): FubWebhookEvent {
  if (typeof value !== 'string' || !(FUB_WEBHOOK_EVENTS as readonly string[]).includes(value))
    throw badRequest(`Invalid event: ${String(value)}`);
  return value as FubWebhookEvent;
}

// FUB posts to https URLs only; the emulator also takes plain http on loopback so tests and the
// sandbox need no certificate (a documented deviation).
function url(value: unknown): string {
  let parsed: URL;
  try {
    parsed = new URL(String(value));
  } catch {
    throw badRequest(`Invalid url: ${String(value)}`);
  }
  const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(parsed.hostname);
  if (parsed.protocol !== 'https:' && !(parsed.protocol === 'http:' && loopback))
    throw badRequest('url must use https');
  return parsed.toString();
}

function checkRoom(ctx: ApiContext, wanted: FubWebhookEvent, except?: number): void {
  const taken = [...ctx.webhooks.hooks.values()].filter(
    (h) => h.system === ctx.system && h.event === wanted && h.id !== except,
  );
  if (taken.length >= MAX_PER_EVENT)
    throw badRequest(`A system may register at most ${MAX_PER_EVENT} webhooks for ${wanted}`);
}

// /v1/webhooks: list, create, get, update, delete (docs.followupboss.com/reference/webhooks-guide).
export const WEBHOOK_ROUTES: ApiRoute[] = [
  {
    method: 'GET',
    pattern: /^\/v1\/webhooks$/,
    handle: (ctx) => {
      const mine = system(ctx);
      const wanted = ctx.query.get('event');
      const all = [...ctx.webhooks.hooks.values()]
        .filter((h) => h.system === mine && (!wanted || h.event === wanted))
        .sort((a, b) => a.id - b.id);
      const limit = Math.min(Number(ctx.query.get('limit') ?? 10) || 10, MAX_LIMIT);
      const offset = Number(ctx.query.get('offset') ?? 0) || 0;
      return {
        status: 200,
        body: {
          _metadata: { collection: 'webhooks', offset, limit, total: all.length },
          webhooks: all.slice(offset, offset + limit).map(view),
        },
      };
    },
  },
  {
    method: 'POST',
    pattern: /^\/v1\/webhooks$/,
    handle: (ctx) => {
      const mine = system(ctx);
      const body = object(ctx.body);
      const wanted = event(body.event);
      const target = url(body.url);
      checkRoom(ctx, wanted);
      return { status: 201, body: view(ctx.webhooks.create({ event: wanted, url: target, system: mine })) };
    },
  },
  {
    method: 'GET',
    pattern: /^\/v1\/webhooks\/([^/]+)$/,
    handle: (ctx) => ({ status: 200, body: view(own(ctx)) }),
  },
  {
    method: 'PUT',
    pattern: /^\/v1\/webhooks\/([^/]+)$/,
    handle: (ctx) => {
      const hook = own(ctx);
      const body = object(ctx.body);
      const wanted = body.event === undefined ? hook.event : event(body.event);
      const target = body.url === undefined ? hook.url : url(body.url);
      if (body.status !== undefined && body.status !== 'Active' && body.status !== 'Disabled')
        throw badRequest('status must be Active or Disabled');
      if (wanted !== hook.event) checkRoom(ctx, wanted, hook.id);
      hook.event = wanted;
      hook.url = target;
      if (body.status !== undefined) hook.status = body.status;
      return { status: 200, body: view(hook) };
    },
  },
  {
    method: 'DELETE',
    pattern: /^\/v1\/webhooks\/([^/]+)$/,
    handle: (ctx) => {
      ctx.webhooks.hooks.delete(own(ctx).id);
      return { status: 204 };
    },
  },
];

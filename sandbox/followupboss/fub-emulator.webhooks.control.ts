import type { ControlRoute } from './fub-emulator.control';
import { badRequest } from './fub-emulator.types';
import type { WebhookFaults, WebhookSettings } from './fub-emulator.webhooks';

function object(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw badRequest('a JSON object is required');
  return body as Record<string, unknown>;
}

function numbers<K extends string>(
  body: Record<string, unknown>,
  keys: readonly K[],
  into: Record<K, number>,
): void {
  for (const key of keys) {
    if (body[key] === undefined) continue;
    const value = body[key];
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0)
      throw badRequest(`${key} must be a non-negative integer`);
    into[key] = value;
  }
}

const FAULT_KEYS = [
  'drop',
  'duplicate',
  'badSignature',
  'delayMs',
] as const satisfies readonly (keyof WebhookFaults)[];
const SETTING_KEYS = [
  'maxAttempts',
  'retryBaseMs',
  'timeoutMs',
] as const satisfies readonly (keyof WebhookSettings)[];

// /__control/webhooks/...: delivery faults (the next n deliveries dropped, sent twice, signed with
// a wrong key; a delay before each), retry settings, and the delivery log with what is still pending.
export const WEBHOOK_CONTROL_ROUTES: ControlRoute[] = [
  {
    method: 'PUT',
    pattern: /^\/__control\/webhooks\/faults$/,
    handle: (ctx) => {
      numbers(object(ctx.body), FAULT_KEYS, ctx.webhooks.faults);
      return { status: 200, body: ctx.webhooks.faults };
    },
  },
  {
    method: 'PUT',
    pattern: /^\/__control\/webhooks\/settings$/,
    handle: (ctx) => {
      const body = object(ctx.body);
      numbers(body, SETTING_KEYS, ctx.webhooks.settings);
      if (ctx.webhooks.settings.maxAttempts < 1) ctx.webhooks.settings.maxAttempts = 1;
      return { status: 200, body: ctx.webhooks.settings };
    },
  },
  {
    method: 'GET',
    pattern: /^\/__control\/webhooks\/deliveries$/,
    handle: (ctx) => ({
      status: 200,
      body: { pending: ctx.webhooks.pending, deliveries: ctx.webhooks.deliveries },
    }),
  },
  {
    method: 'GET',
    pattern: /^\/__control\/webhooks$/,
    handle: (ctx) => ({ status: 200, body: [...ctx.webhooks.hooks.values()] }),
  },
];

import { badRequest, notFound } from './fub-emulator.types';
import { id } from './fub-emulator.values';
import {
  FUB_WEBHOOK_EVENTS,
  type FubWebhooks,
  type FubWebhookEvent,
  type StoredWebhook,
} from './fub-emulator.webhooks';

// FUB allows at most two webhooks per event for one system (crm-apis.md B6).
const MAX_PER_EVENT = 2;

export function webhookView(hook: StoredWebhook): Record<string, unknown> {
  return { id: hook.id, status: hook.status, event: hook.event, url: hook.url };
}

// Webhooks belong to the registered system that made them; a call without one cannot manage any.
export function registeredSystem(system: string | undefined): string {
  if (!system) throw badRequest('X-System and a valid X-System-Key are required to manage webhooks');
  return system;
}

export function ownWebhook(webhooks: FubWebhooks, system: string | undefined, param: string): StoredWebhook {
  const hook = webhooks.hooks.get(id(param));
  if (!hook || hook.system !== registeredSystem(system)) throw notFound(`Webhook ${param}`);
  return hook;
}

export function webhookEvent(value: unknown): FubWebhookEvent {
  if (typeof value !== 'string' || !(FUB_WEBHOOK_EVENTS as readonly string[]).includes(value))
    throw badRequest(`Invalid event: ${String(value)}`);
  return value as FubWebhookEvent;
}

// FUB posts to https URLs only; the emulator also takes plain http on loopback so tests and the
// sandbox need no certificate (a documented deviation).
export function webhookUrl(value: unknown): string {
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

export function checkRoom(
  webhooks: FubWebhooks,
  system: string | undefined,
  wanted: FubWebhookEvent,
  except?: number,
): void {
  const taken = [...webhooks.hooks.values()].filter(
    (h) => h.system === system && h.event === wanted && h.id !== except,
  );
  if (taken.length >= MAX_PER_EVENT)
    throw badRequest(`A system may register at most ${MAX_PER_EVENT} webhooks for ${wanted}`);
}

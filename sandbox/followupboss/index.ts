import { startSimulatorApp } from '../simulator-app';
import { FubState } from './fub-emulator.state';
import { scalarText, type RateLimitSetting, type StoredRecord } from './fub-emulator.types';
import { DEFAULT_WEBHOOK_SETTINGS, FubWebhooks, type WebhookSettings } from './fub-emulator.webhooks';
import { FubEmulatorModule } from './http/fub-emulator.module';
import { FubExceptionFilter } from './http/fub-exception.filter';
import { FubFaultInjector } from './http/fub-fault.injector';

export type { Faults, RateLimitSetting, RequestLogEntry } from './fub-emulator.types';
export { fubSignature, FUB_WEBHOOK_EVENTS } from './fub-emulator.webhooks';
export type { DeliveryAttempt, WebhookFaults, WebhookSettings } from './fub-emulator.webhooks';

export interface FollowUpBossEmulatorOptions {
  port?: number;
  host?: string;
  apiKey?: string;
  systemKey?: string;
  // The global context's limit for a registered system; null turns it off.
  rateLimit?: RateLimitSetting | null;
  // Webhook delivery retries and timeout (defaults: 5 attempts, 1 s doubling, 5 s timeout).
  webhooks?: Partial<WebhookSettings>;
}

export interface FollowUpBossEmulatorStateView {
  count(resource: 'people' | 'deals' | 'notes' | 'tasks'): number;
  // A deal or person as stored, built-in and custom fields together.
  get(
    resource: 'people' | 'deals' | 'notes' | 'tasks',
    id: string,
  ): Readonly<Record<string, unknown>> | undefined;
  findByField(
    resource: 'people' | 'deals',
    field: string,
    value: string,
  ): Readonly<Record<string, unknown>>[];
  pipelines(): { id: number; name: string; stages: { id: number; name: string }[] }[];
}

export interface FollowUpBossEmulator {
  // The server root; the API is under `${url}/v1`, the control API under `${url}/__control`.
  url: string;
  port: number;
  apiKey: string;
  systemKey: string;
  system: string;
  state: FollowUpBossEmulatorStateView;
  close(): Promise<void>;
}

export const DEFAULT_FUB_EMULATOR_PORT = 4030;
export const DEFAULT_FUB_EMULATOR_API_KEY = 'fub-emulator-key-0000';
export const DEFAULT_FUB_EMULATOR_SYSTEM = 'cash-offer-sync';
export const DEFAULT_FUB_EMULATOR_SYSTEM_KEY = 'fub-emulator-system-key-0000';

export async function startFollowUpBossEmulator(
  options: FollowUpBossEmulatorOptions = {},
): Promise<FollowUpBossEmulator> {
  const apiKey = options.apiKey ?? process.env.FUB_EMULATOR_API_KEY ?? DEFAULT_FUB_EMULATOR_API_KEY;
  const systemKey =
    options.systemKey ?? process.env.FUB_EMULATOR_SYSTEM_KEY ?? DEFAULT_FUB_EMULATOR_SYSTEM_KEY;
  const port = options.port ?? Number(process.env.FUB_EMULATOR_PORT ?? DEFAULT_FUB_EMULATOR_PORT);
  const host = options.host ?? '127.0.0.1';

  // Bodies are read after authentication, the rate limit and the faults (FubJsonBodyInterceptor).
  const {
    app,
    url,
    port: bound,
  } = await startSimulatorApp(
    FubEmulatorModule.register({
      apiKey,
      systemKey,
      // FUB's documented global context for a registered system: 250 per 10 s (crm-apis.md B4).
      rateLimit: options.rateLimit === undefined ? { max: 250, windowMs: 10_000 } : options.rateLimit,
      webhooks: { ...DEFAULT_WEBHOOK_SETTINGS, ...options.webhooks },
    }),
    { host, port, keepAliveTimeoutMs: 30_000, exceptionFilter: FubExceptionFilter },
  );
  const state = app.get(FubState);
  const webhooks = app.get(FubWebhooks);
  webhooks.apiBase = url;
  const view = (r: StoredRecord) => ({ id: r.id, created: r.created, updated: r.updated, ...r.fields });
  let closing: Promise<void> | undefined;
  return {
    url,
    port: bound,
    apiKey,
    systemKey,
    system: DEFAULT_FUB_EMULATOR_SYSTEM,
    state: {
      count: (resource) => state.records[resource].size,
      get: (resource, id) => {
        const r = state.records[resource].get(Number(id));
        return r ? view(r) : undefined;
      },
      findByField: (resource, field, value) =>
        [...state.records[resource].values()].filter((r) => scalarText(r.fields[field]) === value).map(view),
      pipelines: () =>
        [...state.pipelines.values()].map((p) => ({
          id: p.id,
          name: p.name,
          stages: p.stages.map((s) => ({ id: s.id, name: s.name })),
        })),
    },
    close(): Promise<void> {
      closing ??= (async () => {
        webhooks.close();
        app.get(FubFaultInjector).close();
        await app.close();
      })();
      return closing;
    },
  };
}

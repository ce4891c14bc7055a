import { startSimulatorApp } from '../simulator-app';
import { EmulatorState } from './emulator.state';
import type { EmulatedOwner } from './emulator.owner-store';
import type { ObjectType, RateLimitSetting, StoredObject } from './emulator.types';
import type { AccountTier } from './emulator.rate-limit';
import { isAccountTier, tierRateLimit } from './emulator.rate-limit';
import { HubSpotEmulatorModule } from './http/hubspot-emulator.module';
import { RateLimits } from './http/rate-limits';
import { DEFAULT_WEBHOOK_SETTINGS, HubSpotWebhooks, type WebhookSettings } from './emulator.webhooks';

export type { AccountTier } from './emulator.rate-limit';
export { hubSpotSignatureV3, MAX_EVENTS_PER_BATCH } from './emulator.webhooks';
export type { DeliveryAttempt, WebhookFaults, WebhookSettings } from './emulator.webhooks';

export { DEFAULT_OWNERS } from './emulator.owner-store';
// The sourceId of the emulated private app's writes in property histories.
export { EMULATOR_INTEGRATION_ID } from './emulator.write-source';
export type { EmulatedOwner } from './emulator.owner-store';
export type { Faults, ObjectType, RateLimitSetting, RequestLogEntry, StoredObject } from './emulator.types';

export interface HubSpotEmulatorOptions {
  port?: number;
  host?: string;
  token?: string;
  // Scopes of `token` (default: all the emulator checks).
  scopes?: readonly string[];
  // More private-app tokens, each with its own scopes.
  tokens?: { token: string; scopes: readonly string[] }[];
  // How long a write stays invisible to search (default HUBSPOT_EMULATOR_SEARCH_LAG_MS or 2 s).
  searchIndexLagMs?: number;
  // The account tier that sets the burst limit (default HUBSPOT_EMULATOR_TIER or professional).
  tier?: AccountTier;
  // HubSpot's burst limit, overriding the tier's; null turns it off.
  rateLimit?: RateLimitSetting | null;
  // Search requests per second; null turns it off.
  searchPerSecond?: number | null;
  // The private app's client secret, which signs its webhooks (default
  // HUBSPOT_EMULATOR_CLIENT_SECRET or DEFAULT_HUBSPOT_EMULATOR_CLIENT_SECRET).
  clientSecret?: string;
  // The portal's users, whose owner ids hubspot_owner_id takes (default DEFAULT_OWNERS).
  owners?: readonly EmulatedOwner[];
  // Webhook delivery retries and timeout (defaults: 10 retries, 0.5 s doubling up to 10 s, 5 s timeout).
  webhooks?: Partial<WebhookSettings>;
}

// Read-only views of what the emulated portal holds, for tests and benchmarks in-process.
export interface HubSpotEmulatorStateView {
  count(type: ObjectType): number;
  get(type: ObjectType, id: string): Readonly<StoredObject> | undefined;
  findByProperty(type: ObjectType, property: string, value: string): Readonly<StoredObject> | undefined;
  findAllByProperty(type: ObjectType, property: string, value: string): Readonly<StoredObject>[];
  associatedIds(from: ObjectType, id: string, to: ObjectType): string[];
  // True when search shows every write (the indexing lag has passed for all of them).
  searchCaughtUp(): boolean;
  // Calls the portal admitted and refused with a 429, by limit (general burst, secondly search).
  rateLimitCounts(): Readonly<RateLimitCounts>;
}

export interface RateLimitCounts {
  generalAdmitted: number;
  generalRejected: number;
  searchAdmitted: number;
  searchRejected: number;
}

export interface HubSpotEmulator {
  url: string;
  port: number;
  token: string;
  clientSecret: string;
  state: HubSpotEmulatorStateView;
  // The portal's users, changed as an admin would in HubSpot's settings (the API only reads them).
  owners: { add(owner: EmulatedOwner): void; deactivate(id: string): void };
  close(): Promise<void>;
}

export const DEFAULT_HUBSPOT_EMULATOR_PORT = 4020;
export const DEFAULT_HUBSPOT_EMULATOR_TOKEN = 'pat-emulator-0000';
export const DEFAULT_HUBSPOT_EMULATOR_CLIENT_SECRET = 'emulator-client-secret-00000000';
// HubSpot documents search as eventually consistent ("a few moments"); seconds by default here.
export const DEFAULT_SEARCH_INDEX_LAG_MS = 2000;

function envTier(): AccountTier {
  const value = process.env.HUBSPOT_EMULATOR_TIER;
  if (value === undefined || value === '') return 'professional';
  if (!isAccountTier(value)) throw new Error(`HUBSPOT_EMULATOR_TIER: unknown account tier "${value}"`);
  return value;
}

function envLagMs(): number {
  const value = process.env.HUBSPOT_EMULATOR_SEARCH_LAG_MS;
  if (value === undefined || value === '') return DEFAULT_SEARCH_INDEX_LAG_MS;
  const ms = Number(value);
  if (!Number.isFinite(ms) || ms < 0)
    throw new Error(`HUBSPOT_EMULATOR_SEARCH_LAG_MS: "${value}" is not a number of ms`);
  return ms;
}

// Starts the emulated portal on `host` as a Nest application (docs/crm-hubspot.md, "The emulator").
export async function startHubSpotEmulator(options: HubSpotEmulatorOptions = {}): Promise<HubSpotEmulator> {
  const token = options.token ?? process.env.HUBSPOT_EMULATOR_TOKEN ?? DEFAULT_HUBSPOT_EMULATOR_TOKEN;
  const port = options.port ?? Number(process.env.HUBSPOT_EMULATOR_PORT ?? DEFAULT_HUBSPOT_EMULATOR_PORT);
  const host = options.host ?? '127.0.0.1';
  const clientSecret =
    options.clientSecret ??
    process.env.HUBSPOT_EMULATOR_CLIENT_SECRET ??
    DEFAULT_HUBSPOT_EMULATOR_CLIENT_SECRET;
  // Bodies are read by JsonBodyMiddleware: any Content-Type, 10 MB, HubSpot's error for bad JSON.
  const {
    app,
    url,
    port: bound,
  } = await startSimulatorApp(
    HubSpotEmulatorModule.register({
      token,
      scopes: options.scopes,
      tokens: options.tokens,
      rateLimit:
        options.rateLimit === undefined ? tierRateLimit(options.tier ?? envTier()) : options.rateLimit,
      searchPerSecond: options.searchPerSecond === undefined ? 5 : options.searchPerSecond,
      searchIndexLagMs: options.searchIndexLagMs ?? envLagMs(),
      ...(options.owners ? { owners: options.owners } : {}),
      webhooks: { clientSecret, settings: { ...DEFAULT_WEBHOOK_SETTINGS, ...options.webhooks } },
    }),
    { host, port, keepAliveTimeoutMs: 30_000 },
  );
  const state = app.get(EmulatorState);
  const webhooks = app.get(HubSpotWebhooks);
  const limits = app.get(RateLimits);
  let closing: Promise<void> | undefined;
  return {
    url,
    port: bound,
    token,
    clientSecret,
    state: {
      count: (type) => state.objects.all(type).size,
      get: (type, id) => state.objects.get(type, id),
      findAllByProperty: (type, property, value) =>
        [...state.objects.all(type).values()].filter((o) => o.properties[property] === value),
      findByProperty: (type, property, value) =>
        [...state.objects.all(type).values()].find((o) => o.properties[property] === value),
      associatedIds: (from, id, to) => state.associations.list(from, id, to).map(([toId]) => toId),
      searchCaughtUp: () => state.objects.searchCaughtUp(Date.now()),
      rateLimitCounts: () => ({ ...limits.counts }),
    },
    owners: {
      add: (owner) => state.owners.add(owner),
      deactivate: (id) => state.owners.archive(id),
    },
    close: () =>
      (closing ??= (async () => {
        webhooks.close();
        await app.close();
      })()),
  };
}

import type { AddressInfo } from 'node:net';
import { EmulatorServer } from './emulator.server';
import { EmulatorState } from './emulator.state';
import type { ObjectType, RateLimitSetting, StoredObject } from './emulator.types';

export type { Faults, ObjectType, RateLimitSetting, RequestLogEntry, StoredObject } from './emulator.types';

export interface HubSpotEmulatorOptions {
  port?: number;
  host?: string;
  token?: string;
  searchIndexLagMs?: number;
  // HubSpot's burst limit; null turns it off.
  rateLimit?: RateLimitSetting | null;
  // Search requests per second; null turns it off.
  searchPerSecond?: number | null;
}

// Read-only views of what the emulated portal holds, for tests and benchmarks in-process.
export interface HubSpotEmulatorStateView {
  count(type: ObjectType): number;
  get(type: ObjectType, id: string): Readonly<StoredObject> | undefined;
  findByProperty(type: ObjectType, property: string, value: string): Readonly<StoredObject> | undefined;
  findAllByProperty(type: ObjectType, property: string, value: string): Readonly<StoredObject>[];
  associatedIds(from: ObjectType, id: string, to: ObjectType): string[];
}

export interface HubSpotEmulator {
  url: string;
  port: number;
  token: string;
  state: HubSpotEmulatorStateView;
  close(): Promise<void>;
}

export const DEFAULT_HUBSPOT_EMULATOR_PORT = 4020;
export const DEFAULT_HUBSPOT_EMULATOR_TOKEN = 'pat-emulator-0000';

export async function startHubSpotEmulator(options: HubSpotEmulatorOptions = {}): Promise<HubSpotEmulator> {
  const token = options.token ?? process.env.HUBSPOT_EMULATOR_TOKEN ?? DEFAULT_HUBSPOT_EMULATOR_TOKEN;
  const port = options.port ?? Number(process.env.HUBSPOT_EMULATOR_PORT ?? DEFAULT_HUBSPOT_EMULATOR_PORT);
  const host = options.host ?? '127.0.0.1';
  const state = new EmulatorState();
  const emulator = new EmulatorServer(state, {
    token,
    rateLimit: options.rateLimit === undefined ? { max: 190, intervalMs: 10_000 } : options.rateLimit,
    searchPerSecond: options.searchPerSecond === undefined ? 5 : options.searchPerSecond,
    searchIndexLagMs: options.searchIndexLagMs ?? 0,
  });
  await new Promise<void>((resolve, reject) => {
    emulator.server.once('error', reject);
    emulator.server.listen(port, host, () => resolve());
  });
  const bound = (emulator.server.address() as AddressInfo).port;
  return {
    url: `http://${host}:${bound}`,
    port: bound,
    token,
    state: {
      count: (type) => state.objects.all(type).size,
      get: (type, id) => state.objects.get(type, id),
      findAllByProperty: (type, property, value) =>
        [...state.objects.all(type).values()].filter((o) => o.properties[property] === value),
      findByProperty: (type, property, value) =>
        [...state.objects.all(type).values()].find((o) => o.properties[property] === value),
      associatedIds: (from, id, to) => state.associations.list(from, id, to).map(([toId]) => toId),
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        emulator.server.close((error) => (error ? reject(error) : resolve()));
        emulator.server.closeAllConnections();
      }),
  };
}

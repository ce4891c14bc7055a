import type { FactoryProvider } from '@nestjs/common';
import { Clock, SystemClock } from '../../common/clock';
import { CrmPort } from '../crm.port';
import { HubSpotCrmAdapter } from './hubspot-crm.adapter';
import type { HubSpotAdapterOptions } from './hubspot.options';

export interface HubSpotConnectionConfig {
  // Where HubSpot is (the emulator's URL in the sandbox); HubSpot's own API when absent.
  baseUrl?: string;
  // The environment variable holding the private-app token; the token itself never sits in config.
  tokenEnv: string;
}

export function hubSpotAdapterOptions(
  config: HubSpotConnectionConfig,
  settings: Omit<HubSpotAdapterOptions, 'accessToken' | 'basePath'> = {},
  env: NodeJS.ProcessEnv = process.env,
): HubSpotAdapterOptions {
  const token = env[config.tokenEnv];
  if (!token)
    throw new Error(`HubSpot private-app token: environment variable ${config.tokenEnv} is not set`);
  return { ...settings, accessToken: token, ...(config.baseUrl ? { basePath: config.baseUrl } : {}) };
}

// `CrmPort` bound to one HubSpot portal, for a module that serves one brokerage.
export function hubSpotCrmProvider(options: HubSpotAdapterOptions): FactoryProvider<CrmPort> {
  return {
    provide: CrmPort,
    useFactory: (clock?: Clock) => new HubSpotCrmAdapter(options, clock ?? new SystemClock()),
    inject: [{ token: Clock, optional: true }],
  };
}

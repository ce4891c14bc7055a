import type { EmulatedOwner } from '../emulator.owner-store';
import type { RateLimitSetting } from '../emulator.types';
import type { WebhookSettings } from '../emulator.webhooks';

// What the emulator was started with; POST /__control/reset goes back to it.
export interface EmulatorOptions {
  token: string;
  // Scopes of `token` (default: every scope the emulator knows).
  scopes?: readonly string[];
  // More private-app tokens with their own scopes.
  tokens?: { token: string; scopes: readonly string[] }[];
  rateLimit: RateLimitSetting | null;
  searchPerSecond: number | null;
  searchIndexLagMs: number;
  // The portal's users (owners API); default DEFAULT_OWNERS.
  owners?: readonly EmulatedOwner[];
  // The private app's client secret (signs its webhooks) and the delivery retry settings.
  webhooks: { clientSecret: string; settings: WebhookSettings };
}

// The portal and the app the emulated private app belongs to (token info, webhook events).
export const EMULATOR_PORTAL_ID = 12345678;
export const EMULATOR_APP_ID = 1;

export const EMULATOR_OPTIONS = Symbol('HubSpotEmulator.options');

import type { RateLimitSetting } from '../emulator.types';

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
}

export const EMULATOR_OPTIONS = Symbol('HubSpotEmulator.options');

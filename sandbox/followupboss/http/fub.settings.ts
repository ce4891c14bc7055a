import type { RateLimitSetting } from '../fub-emulator.types';
import type { WebhookSettings } from '../fub-emulator.webhooks';

export interface FubEmulatorSettings {
  apiKey: string;
  systemKey: string;
  // The limit a reset returns to; null turns it off.
  rateLimit: RateLimitSetting | null;
  webhooks: WebhookSettings;
}

export const FUB_SETTINGS = Symbol('FubEmulator.settings');

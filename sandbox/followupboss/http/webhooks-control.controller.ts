import { Body, Controller, Get, Put, UseInterceptors } from '@nestjs/common';
import { badRequest } from '../fub-emulator.types';
import { FubWebhooks, type WebhookFaults, type WebhookSettings } from '../fub-emulator.webhooks';
import { controlObject } from './control.body';
import { FubJsonBodyInterceptor } from './fub-json-body.interceptor';

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
@Controller('__control/webhooks')
@UseInterceptors(FubJsonBodyInterceptor)
export class WebhooksControlController {
  constructor(private readonly webhooks: FubWebhooks) {}

  @Get()
  registered() {
    return [...this.webhooks.hooks.values()];
  }

  @Put('faults')
  setFaults(@Body() body: unknown) {
    numbers(controlObject(body), FAULT_KEYS, this.webhooks.faults);
    return this.webhooks.faults;
  }

  @Put('settings')
  setSettings(@Body() body: unknown) {
    numbers(controlObject(body), SETTING_KEYS, this.webhooks.settings);
    if (this.webhooks.settings.maxAttempts < 1) this.webhooks.settings.maxAttempts = 1;
    return this.webhooks.settings;
  }

  @Get('deliveries')
  deliveries() {
    return { pending: this.webhooks.pending, deliveries: this.webhooks.deliveries };
  }
}

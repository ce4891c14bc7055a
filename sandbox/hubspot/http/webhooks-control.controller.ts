import { Body, Controller, Get, HttpCode, Put, UseInterceptors } from '@nestjs/common';
import { badRequest } from '../emulator.errors';
import { record } from '../emulator.inputs';
import {
  HubSpotWebhooks,
  type WebhookFaults,
  type WebhookObjectName,
  type WebhookSettings,
  type WebhookSubscription,
  type WebhookSubscriptionType,
} from '../emulator.webhooks';
import { HubSpotReplyInterceptor } from './hubspot-reply.interceptor';

const FAULT_KEYS = [
  'drop',
  'duplicate',
  'badSignature',
  'delayMs',
] as const satisfies readonly (keyof WebhookFaults)[];
const SETTING_KEYS = [
  'maxRetries',
  'retryBaseMs',
  'retryMaxMs',
  'timeoutMs',
] as const satisfies readonly (keyof WebhookSettings)[];
const SUBSCRIPTION_TYPES: readonly string[] = ['object.creation', 'object.propertyChange', 'object.deletion'];
const OBJECT_NAMES: readonly string[] = ['deal', 'contact'];

function numbers<K extends string>(
  body: Record<string, unknown>,
  keys: readonly K[],
  into: Record<K, number>,
): void {
  for (const key of keys) {
    const value = body[key];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0)
      throw badRequest(`${key} must be a non-negative integer`);
    into[key] = value;
  }
}

// /__control/webhooks: the private app's webhook settings and subscriptions (PUT takes a project's
// webhooks.json as it is, `objectName` or `objectType`, plus an optional `clientSecret`), the
// delivery faults (the next n batches dropped, sent twice, signed with a wrong secret; a delay before
// each), the retry settings, and the delivery log with what is still pending.
@Controller('__control/webhooks')
@UseInterceptors(HubSpotReplyInterceptor)
export class WebhooksControlController {
  constructor(private readonly webhooks: HubSpotWebhooks) {}

  @Get()
  @HttpCode(200)
  app(): Record<string, unknown> {
    return { ...this.webhooks.app, appId: this.webhooks.appId, portalId: this.webhooks.portalId };
  }

  @Put()
  @HttpCode(200)
  configure(@Body() rawBody: unknown): Record<string, unknown> {
    const body = record(rawBody, 'webhooks');
    const settings = record(body.settings, 'settings');
    const targetUrl = settings.targetUrl;
    if (typeof targetUrl !== 'string' || !/^https?:\/\//.test(targetUrl))
      throw badRequest('settings.targetUrl must be an http(s) URL');
    const max = settings.maxConcurrentRequests ?? 10;
    if (typeof max !== 'number' || !Number.isInteger(max) || max < 1)
      throw badRequest('settings.maxConcurrentRequests must be a positive integer');
    const crmObjects = record(body.subscriptions ?? {}, 'subscriptions').crmObjects ?? [];
    if (!Array.isArray(crmObjects)) throw badRequest('subscriptions.crmObjects must be an array');
    const subscriptions = crmObjects.map((raw, i): Omit<WebhookSubscription, 'id'> => {
      const s = record(raw, `subscriptions.crmObjects[${i}]`);
      const objectName = s.objectName ?? s.objectType;
      if (typeof s.subscriptionType !== 'string' || !SUBSCRIPTION_TYPES.includes(s.subscriptionType))
        throw badRequest(
          `subscriptions.crmObjects[${i}].subscriptionType must be one of ${SUBSCRIPTION_TYPES.join(', ')}`,
        );
      if (typeof objectName !== 'string' || !OBJECT_NAMES.includes(objectName))
        throw badRequest(`subscriptions.crmObjects[${i}].objectName must be deal or contact`);
      if (s.subscriptionType === 'object.propertyChange' && typeof s.propertyName !== 'string')
        throw badRequest(`subscriptions.crmObjects[${i}].propertyName is required for object.propertyChange`);
      return {
        subscriptionType: s.subscriptionType as WebhookSubscriptionType,
        objectName: objectName as WebhookObjectName,
        ...(typeof s.propertyName === 'string' ? { propertyName: s.propertyName } : {}),
        active: s.active !== false,
      };
    });
    if (
      body.clientSecret !== undefined &&
      (typeof body.clientSecret !== 'string' || body.clientSecret === '')
    )
      throw badRequest('clientSecret must be a non-empty string');
    this.webhooks.configure({ targetUrl, maxConcurrentRequests: max, subscriptions }, body.clientSecret);
    return this.app();
  }

  @Put('faults')
  @HttpCode(200)
  setFaults(@Body() body: unknown): WebhookFaults {
    numbers(record(body, 'faults'), FAULT_KEYS, this.webhooks.faults);
    return this.webhooks.faults;
  }

  @Put('settings')
  @HttpCode(200)
  setSettings(@Body() body: unknown): WebhookSettings {
    numbers(record(body, 'settings'), SETTING_KEYS, this.webhooks.settings);
    return this.webhooks.settings;
  }

  @Get('deliveries')
  @HttpCode(200)
  deliveries(): Record<string, unknown> {
    return { pending: this.webhooks.pending, deliveries: this.webhooks.deliveries };
  }
}

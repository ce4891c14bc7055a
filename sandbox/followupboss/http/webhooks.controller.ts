import { Body, Delete, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { MAX_LIMIT } from '../fub-emulator.list';
import { badRequest } from '../fub-emulator.types';
import { object } from '../fub-emulator.values';
import { FubWebhooks } from '../fub-emulator.webhooks';
import {
  checkRoom,
  ownWebhook,
  registeredSystem,
  webhookEvent,
  webhookUrl,
  webhookView,
} from '../fub-emulator.webhooks.rules';
import { FubApiController } from './fub-api.decorators';
import { SearchParams, System } from './fub.request';

// /v1/webhooks: list, create, get, update, delete (docs.followupboss.com/reference/webhooks-guide).
@FubApiController('webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: FubWebhooks) {}

  @Get()
  list(@System() system: string | undefined, @SearchParams() query: URLSearchParams) {
    const mine = registeredSystem(system);
    const wanted = query.get('event');
    const all = [...this.webhooks.hooks.values()]
      .filter((h) => h.system === mine && (!wanted || h.event === wanted))
      .sort((a, b) => a.id - b.id);
    const limit = Math.min(Number(query.get('limit') ?? 10) || 10, MAX_LIMIT);
    const offset = Number(query.get('offset') ?? 0) || 0;
    return {
      _metadata: { collection: 'webhooks', offset, limit, total: all.length },
      webhooks: all.slice(offset, offset + limit).map(webhookView),
    };
  }

  @Post()
  @HttpCode(201)
  create(@System() system: string | undefined, @Body() body: unknown) {
    const mine = registeredSystem(system);
    const b = object(body);
    const event = webhookEvent(b.event);
    const url = webhookUrl(b.url);
    checkRoom(this.webhooks, mine, event);
    return webhookView(this.webhooks.create({ event, url, system: mine }));
  }

  @Get(':id')
  get(@System() system: string | undefined, @Param('id') hookId: string) {
    return webhookView(ownWebhook(this.webhooks, system, hookId));
  }

  @Put(':id')
  @HttpCode(200)
  update(@System() system: string | undefined, @Param('id') hookId: string, @Body() body: unknown) {
    const hook = ownWebhook(this.webhooks, system, hookId);
    const b = object(body);
    const event = b.event === undefined ? hook.event : webhookEvent(b.event);
    const url = b.url === undefined ? hook.url : webhookUrl(b.url);
    if (b.status !== undefined && b.status !== 'Active' && b.status !== 'Disabled')
      throw badRequest('status must be Active or Disabled');
    if (event !== hook.event) checkRoom(this.webhooks, system, event, hook.id);
    hook.event = event;
    hook.url = url;
    if (b.status !== undefined) hook.status = b.status;
    return webhookView(hook);
  }

  @Delete(':id')
  @HttpCode(204)
  remove(@System() system: string | undefined, @Param('id') hookId: string): void {
    this.webhooks.hooks.delete(ownWebhook(this.webhooks, system, hookId).id);
  }
}

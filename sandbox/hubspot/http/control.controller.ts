import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Inject,
  Param,
  Post,
  Put,
  UseInterceptors,
} from '@nestjs/common';
import { readCallMatch } from '../../call-match';
import { ControlObjectsService } from '../emulator.control-objects.service';
import { badRequest } from '../emulator.errors';
import { record } from '../emulator.inputs';
import { isAccountTier, tierRateLimit } from '../emulator.rate-limit';
import { EmulatorState } from '../emulator.state';
import { UiChanges } from '../emulator.ui-changes';
import { HubSpotWebhooks } from '../emulator.webhooks';
import type { Faults } from '../emulator.types';
import { EMULATOR_OPTIONS, type EmulatorOptions } from './emulator.options';
import { SearchParams } from './emulator.request';
import { FaultSettings } from './fault.settings';
import { HubSpotReplyInterceptor } from './hubspot-reply.interceptor';
import { PrivateAppTokens } from './private-app.tokens';
import { RateLimits } from './rate-limits';
import { RequestLog } from './request.log';

const FAULT_KEYS = [
  'errorRate',
  'errorStatus',
  'burst429',
  'burst423',
  'burst477',
  'retryAfter477Seconds',
  'latencyMs',
  'errorAfterCommitRate',
  'errorAfterCommitStatus',
] as const;

// The unauthenticated control API under /__control, for tests, benchmarks and demos.
@Controller('__control')
@UseInterceptors(HubSpotReplyInterceptor)
export class ControlController {
  constructor(
    private readonly state: EmulatorState,
    private readonly objects: ControlObjectsService,
    private readonly faults: FaultSettings,
    private readonly limits: RateLimits,
    private readonly tokens: PrivateAppTokens,
    private readonly log: RequestLog,
    private readonly webhooks: HubSpotWebhooks,
    private readonly uiChanges: UiChanges,
    @Inject(EMULATOR_OPTIONS) private readonly options: EmulatorOptions,
  ) {}

  // Back to a fresh portal with the settings the emulator was started with.
  @Post('reset')
  @HttpCode(204)
  reset(): void {
    this.state.reset();
    this.log.clear();
    this.faults.reset();
    this.limits.reset();
    this.state.objects.searchIndexLagMs = this.options.searchIndexLagMs;
    this.tokens.reset();
    this.webhooks.reset();
    this.uiChanges.reset();
  }

  @Get('faults')
  @HttpCode(200)
  getFaults(): Faults {
    return this.faults.faults;
  }

  @Put('faults')
  @HttpCode(200)
  putFaults(@Body() rawBody: unknown): Faults {
    const body = record(rawBody, 'faults');
    for (const key of FAULT_KEYS) {
      const value = body[key];
      if (value === undefined) continue;
      if (typeof value !== 'number' || value < 0) throw badRequest(`${key} must be a non-negative number`);
      this.faults.faults[key] = value;
    }
    if (body.match !== undefined) {
      const read = readCallMatch(body.match);
      if ('error' in read) throw badRequest(read.error);
      this.faults.faults.match = read.match;
    }
    return this.faults.faults;
  }

  @Get('requests')
  @HttpCode(200)
  requests(): Record<string, unknown> {
    return { requests: this.log.entries };
  }

  @Delete('requests')
  @HttpCode(204)
  clearRequests(): void {
    this.log.clear();
  }

  @Get('settings')
  @HttpCode(200)
  getSettings(): Record<string, unknown> {
    return this.settings();
  }

  @Put('settings')
  @HttpCode(200)
  putSettings(@Body() rawBody: unknown): Record<string, unknown> {
    const body = record(rawBody, 'settings');
    if (body.tier !== undefined) {
      if (!isAccountTier(body.tier))
        throw badRequest(`tier must be free, starter, professional, enterprise or api-limit-increase`);
      this.limits.rateLimit = tierRateLimit(body.tier);
    }
    if (body.rateLimit !== undefined) {
      if (body.rateLimit === null) this.limits.rateLimit = null;
      else {
        const rl = record(body.rateLimit, 'rateLimit');
        this.limits.rateLimit = { max: Number(rl.max), intervalMs: Number(rl.intervalMs) };
      }
    }
    if (body.searchPerSecond !== undefined)
      this.limits.searchPerSecond = body.searchPerSecond === null ? null : Number(body.searchPerSecond);
    if (body.searchIndexLagMs !== undefined)
      this.state.objects.searchIndexLagMs = Number(body.searchIndexLagMs);
    return this.settings();
  }

  // Adds or replaces a private-app token with the scopes it was granted: `{ token, scopes }`.
  @Put('tokens')
  @HttpCode(200)
  putToken(@Body() rawBody: unknown): Record<string, unknown> {
    const body = record(rawBody, 'token');
    if (typeof body.token !== 'string' || body.token === '') throw badRequest('token is required');
    if (!Array.isArray(body.scopes)) throw badRequest('scopes must be an array of scope names');
    this.tokens.set(body.token, body.scopes.map(String));
    return { token: body.token, scopes: this.tokens.scopesOf(body.token) };
  }

  @Post('seed')
  @HttpCode(201)
  seed(@Body() body: unknown): Record<string, unknown> {
    return this.objects.seed(body);
  }

  @Get('objects/:objectType')
  @HttpCode(200)
  listObjects(
    @Param('objectType') type: string,
    @SearchParams() query: URLSearchParams,
  ): Record<string, unknown> {
    return this.objects.list(type, query);
  }

  @Get('objects/:objectType/:objectId')
  @HttpCode(200)
  getObject(@Param('objectType') type: string, @Param('objectId') id: string): Record<string, unknown> {
    return this.objects.get(type, id);
  }

  private settings(): Record<string, unknown> {
    return {
      rateLimit: this.limits.rateLimit,
      searchPerSecond: this.limits.searchPerSecond,
      searchIndexLagMs: this.state.objects.searchIndexLagMs,
      // Read-only: calls admitted and refused with a 429 since start, by limit.
      rateLimitCounts: { ...this.limits.counts },
    };
  }
}

import { readCallMatch } from '../../call-match';
import { Body, Controller, Delete, Get, HttpCode, Post, Put, UseInterceptors } from '@nestjs/common';
import { personView } from '../fub-emulator.people';
import { fubTime, FubState } from '../fub-emulator.state';
import { badRequest } from '../fub-emulator.types';
import { FubWebhooks } from '../fub-emulator.webhooks';
import { controlObject } from './control.body';
import { FubCallLog } from './fub-call.log';
import { FubFaultInjector } from './fub-fault.injector';
import { FubJsonBodyInterceptor } from './fub-json-body.interceptor';
import { FubRateLimiter } from './fub-rate.limiter';

// /__control: fault injection, settings, the request log and the account's contents, outside the
// rate limit and without auth (the emulator binds 127.0.0.1).
@Controller('__control')
@UseInterceptors(FubJsonBodyInterceptor)
export class ControlController {
  constructor(
    private readonly state: FubState,
    private readonly webhooks: FubWebhooks,
    private readonly faults: FubFaultInjector,
    private readonly log: FubCallLog,
    private readonly limiter: FubRateLimiter,
  ) {}

  @Put('faults')
  setFaults(@Body() body: unknown) {
    const b = controlObject(body);
    const keys = [
      'errorRate',
      'errorStatus',
      'burst429',
      'latencyMs',
      'answerDelayMs',
      'errorAfterCommitRate',
      'errorAfterCommitStatus',
    ] as const;
    for (const key of keys) {
      if (b[key] === undefined) continue;
      const value = b[key];
      if (typeof value !== 'number' || value < 0) throw badRequest(`${key} must be a non-negative number`);
      this.faults.current[key] = value;
    }
    if (b.systemOnly !== undefined) {
      if (typeof b.systemOnly !== 'boolean') throw badRequest('systemOnly must be true or false');
      this.faults.current.systemOnly = b.systemOnly;
    }
    if (b.match !== undefined) {
      const read = readCallMatch(b.match);
      if ('error' in read) throw badRequest(read.error);
      this.faults.current.match = read.match;
    }
    return this.faults.current;
  }

  @Delete('faults')
  clearFaults() {
    this.faults.clear();
    return this.faults.current;
  }

  @Get('settings')
  settings() {
    return { rateLimit: this.limiter.setting, clockOffsetMs: this.state.offsetMs };
  }

  @Put('settings')
  changeSettings(@Body() body: unknown) {
    const b = controlObject(body);
    if (b.rateLimit !== undefined) {
      const rl = b.rateLimit === null ? null : controlObject(b.rateLimit);
      this.limiter.setting = rl ? { max: Number(rl.max), windowMs: Number(rl.windowMs ?? 10_000) } : null;
    }
    // Moves the account's clock, so `updated` times can be made to differ without waiting.
    if (typeof b.advanceClockMs === 'number') this.state.offsetMs += b.advanceClockMs;
    return this.settings();
  }

  @Get('log')
  requestLog() {
    return this.log.entries;
  }

  @Get('writes')
  writeLog() {
    return this.log.writes;
  }

  // API answers by "METHOD status" since the last reset (the log keeps the last 10,000 only).
  @Get('stats')
  stats() {
    return Object.fromEntries(this.log.stats);
  }

  @Post('reset')
  @HttpCode(200)
  reset() {
    this.state.reset();
    this.webhooks.reset();
    this.log.clear();
    this.faults.clear();
    this.limiter.reset();
    return { reset: true };
  }

  @Get('people')
  people() {
    return [...this.state.records.people.values()].map((r) => personView(r, 'allFields'));
  }

  @Get('deals')
  deals() {
    return this.stored('deals');
  }

  @Get('notes')
  notes() {
    return this.stored('notes');
  }

  @Get('tasks')
  tasks() {
    return this.stored('tasks');
  }

  // Many deals in one call, outside the rate limit: `{ count, fields }`, "{i}" in a text value
  // becomes the record's index.
  @Post('seed/deals')
  @HttpCode(201)
  seedDeals(@Body() body: unknown) {
    const b = controlObject(body);
    const count = Number(b.count);
    if (!Number.isInteger(count) || count < 1 || count > 200_000) throw badRequest('count must be 1..200000');
    const template = controlObject(b.fields ?? {});
    const ids: number[] = [];
    for (let i = 0; i < count; i++) {
      const fields = Object.fromEntries(
        Object.entries(template).map(([k, v]) => [
          k,
          typeof v === 'string' ? v.replace(/\{i\}/g, String(i)) : v,
        ]),
      );
      ids.push(this.state.create('deals', fields).id);
    }
    return {
      created: ids.length,
      firstId: ids[0],
      lastId: ids[ids.length - 1],
      at: fubTime(this.state.now()),
    };
  }

  private stored(resource: 'deals' | 'notes' | 'tasks') {
    return [...this.state.records[resource].values()].map((r) => ({
      id: r.id,
      created: r.created,
      updated: r.updated,
      ...r.fields,
    }));
  }
}

import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { Response } from 'express';
import { timingSafeEqual } from 'node:crypto';
import { FubHttpError } from '../fub-emulator.types';
import { FubCallLog } from './fub-call.log';
import { requestOf } from './fub.request';
import { FUB_SETTINGS, type FubEmulatorSettings } from './fub.settings';

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

// HTTP Basic, the API key as user name and any password (crm-apis.md B1/B6). It is the first step
// of every API call, so it also puts the call in the request log (a 401 is logged too).
@Injectable()
export class FubAuthGuard implements CanActivate {
  constructor(
    @Inject(FUB_SETTINGS) private readonly settings: FubEmulatorSettings,
    private readonly log: FubCallLog,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    const req = requestOf(context);
    this.log.watch(req, context.switchToHttp().getResponse<Response>());
    const match = /^Basic\s+(.+)$/i.exec(req.headers.authorization ?? '');
    const user = match ? Buffer.from(match[1], 'base64').toString('utf8').split(':')[0] : '';
    if (!same(user, this.settings.apiKey))
      throw new FubHttpError(401, 'Unauthorized: the API key is not valid.');
    req.fubSystem = this.systemOf(req.headers['x-system'], req.headers['x-system-key']);
    return true;
  }

  // A registered system sends its name and key; without them FUB halves the limit (B4) and the
  // call cannot manage webhooks.
  private systemOf(system: unknown, key: unknown): string | undefined {
    const registered =
      typeof system === 'string' &&
      system !== '' &&
      typeof key === 'string' &&
      same(key, this.settings.systemKey);
    return registered ? system : undefined;
  }
}

import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Response } from 'express';
import { FubHttpError } from '../fub-emulator.types';
import { FubRateLimiter } from './fub-rate.limiter';
import { requestOf } from './fub.request';

// FUB's sliding window: its headers go on every answer after authentication (errors included),
// and a call over the limit is a 429 with Retry-After before anything else happens.
@Injectable()
export class FubRateLimitGuard implements CanActivate {
  constructor(private readonly limiter: FubRateLimiter) {}

  canActivate(context: ExecutionContext): boolean {
    const admission = this.limiter.admit(requestOf(context).fubSystem !== undefined);
    context.switchToHttp().getResponse<Response>().set(admission.headers);
    if (!admission.ok)
      throw new FubHttpError(
        429,
        'Too many requests. Please wait before making more requests.',
        admission.headers,
      );
    return true;
  }
}

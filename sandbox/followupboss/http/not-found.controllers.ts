import { All, Controller, Req, UseGuards } from '@nestjs/common';
import type { Request } from 'express';
import { FubHttpError } from '../fub-emulator.types';
import { FubAuthGuard } from './fub-auth.guard';
import { FubRateLimitGuard } from './fub-rate-limit.guard';
import { pathOf } from './fub.request';

// An unknown control path: no auth, FUB's error shape.
@Controller('__control')
export class ControlNotFoundController {
  @All(['/', '{*path}'])
  notFound(@Req() req: Request): never {
    throw new FubHttpError(404, `No control route ${req.method} ${pathOf(req)}`);
  }
}

// Registered last: any other path is an API call FUB does not know, authenticated, counted against
// the limit and logged like the others; no faults are injected, as FUB refuses it before
// doing anything.
@Controller()
@UseGuards(FubAuthGuard, FubRateLimitGuard)
export class NotFoundController {
  @All('{*path}')
  notFound(@Req() req: Request): never {
    throw new FubHttpError(404, `Unknown resource ${req.method} ${pathOf(req)}`);
  }
}

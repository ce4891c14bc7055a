import { All, Controller, Req, UseGuards } from '@nestjs/common';
import type { Request } from 'express';
import { HubSpotHttpError } from '../emulator.errors';
import { pathOf } from './emulator.request';
import { PrivateAppGuard } from './private-app.guard';

// Nest registers routes most specific first, so these answer only what no other route did.

@Controller('__control')
export class ControlNotFoundController {
  @All('*path')
  notFound(@Req() req: Request): never {
    throw new HubSpotHttpError(404, 'OBJECT_NOT_FOUND', `No control route ${req.method} ${pathOf(req)}`);
  }
}

// As HubSpot does, an unknown path is looked at only once the token is valid (401 first).
@Controller()
@UseGuards(PrivateAppGuard)
export class NotFoundController {
  @All('{*path}')
  notFound(@Req() req: Request): never {
    throw new HubSpotHttpError(
      404,
      'OBJECT_NOT_FOUND',
      `Unable to find a route for ${req.method} ${pathOf(req)}`,
    );
  }
}

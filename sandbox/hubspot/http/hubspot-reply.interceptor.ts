import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { Response } from 'express';
import { map, Observable } from 'rxjs';
import { HubSpotReply } from '../emulator.reply';
import { jsonFile } from './hubspot-json';

// Sends what a handler returns as HubSpot does: JSON with its Content-Type, nothing for a 204, and
// the status a HubSpotReply names in place of the route's @HttpCode.
@Injectable()
export class HubSpotReplyInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const res = context.switchToHttp().getResponse<Response>();
    return next.handle().pipe(
      map((result: unknown) => {
        let body = result;
        if (result instanceof HubSpotReply) {
          res.status(result.status);
          body = result.body;
        }
        return body === undefined ? undefined : jsonFile(body);
      }),
    );
  }
}

import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { Response } from 'express';
import { Observable, tap } from 'rxjs';
import { requestOf } from './emulator.request';
import { RequestLog } from './request.log';

// Logs an answered API call with its final status (failures are logged by the exception filter).
@Injectable()
export class RequestLogInterceptor implements NestInterceptor {
  constructor(private readonly log: RequestLog) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = requestOf(context);
    const res = context.switchToHttp().getResponse<Response>();
    return next.handle().pipe(tap(() => this.log.record(req, res.statusCode)));
  }
}

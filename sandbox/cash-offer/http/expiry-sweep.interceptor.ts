import { CallHandler, Injectable, NestInterceptor } from '@nestjs/common';
import { Observable } from 'rxjs';
import { ExpirySweeper } from '../expiry.sweeper';

// Expiry follows the sandbox clock: an API call first expires whatever has come due.
@Injectable()
export class ExpirySweepInterceptor implements NestInterceptor {
  constructor(private readonly sweeper: ExpirySweeper) {}

  intercept(_: unknown, next: CallHandler): Observable<unknown> {
    this.sweeper.sweepIfDue();
    return next.handle();
  }
}

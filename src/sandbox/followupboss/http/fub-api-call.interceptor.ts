import { CallHandler, Injectable, NestInterceptor } from '@nestjs/common';
import { defer, Observable, switchMap } from 'rxjs';
import { FubFaults } from './fub-faults';

// The faults of /__control/faults on an admitted API call: the latency first, then a burst 429
// or an injected error instead of the handler.
@Injectable()
export class FubApiCallInterceptor implements NestInterceptor {
  constructor(private readonly faults: FubFaults) {}

  intercept(_context: unknown, next: CallHandler): Observable<unknown> {
    return defer(async () => {
      await this.faults.delay();
      this.faults.inject();
    }).pipe(switchMap(() => next.handle()));
  }
}

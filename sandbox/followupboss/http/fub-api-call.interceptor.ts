import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { concatMap, defer, Observable, switchMap } from 'rxjs';
import { FubFaultInjector } from './fub-fault.injector';

// The faults of /__control/faults on an admitted API call: the latency first, then a burst 429
// or an injected error instead of the handler, and the answer held back after it.
@Injectable()
export class FubApiCallInterceptor implements NestInterceptor {
  constructor(private readonly faults: FubFaultInjector) {}

  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return defer(async () => {
      await this.faults.delay();
      this.faults.inject();
    }).pipe(
      switchMap(() => next.handle()),
      concatMap(async (answer: unknown) => {
        await this.faults.delayAnswer();
        return answer;
      }),
    );
  }
}

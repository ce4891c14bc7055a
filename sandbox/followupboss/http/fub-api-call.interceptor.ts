import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { concatMap, defer, Observable, switchMap } from 'rxjs';
import { FubFaultInjector } from './fub-fault.injector';
import { requestOf } from './fub.request';

// The faults of /__control/faults on an admitted API call: the latency first, then a burst 429
// or an injected error instead of the handler, and the answer held back (or lost) after it.
@Injectable()
export class FubApiCallInterceptor implements NestInterceptor {
  constructor(private readonly faults: FubFaultInjector) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = requestOf(context);
    const call = `${request.method} ${request.path.replace(/^\/v1(?=\/)/, '')}`;
    return defer(async () => {
      await this.faults.delay();
      this.faults.inject(call, request.fubSystem);
    }).pipe(
      switchMap(() => next.handle()),
      concatMap(async (answer: unknown) => {
        await this.faults.delayAnswer();
        this.faults.loseAnswer(call, request.fubSystem);
        return answer;
      }),
    );
  }
}

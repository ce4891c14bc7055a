import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { concatMap, defer, Observable, switchMap } from 'rxjs';
import { FubFaultInjector } from './fub-fault.injector';

// The faults of /__control/faults on an admitted API call: the latency first, then a burst 429
// or an injected error instead of the handler, and the answer held back (or lost) after it.
@Injectable()
export class FubApiCallInterceptor implements NestInterceptor {
  constructor(private readonly faults: FubFaultInjector) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<{ method: string; path: string }>();
    const call = `${request.method} ${request.path.replace(/^\/v1(?=\/)/, '')}`;
    return defer(async () => {
      await this.faults.delay();
      this.faults.inject(call);
    }).pipe(
      switchMap(() => next.handle()),
      concatMap(async (answer: unknown) => {
        await this.faults.delayAnswer();
        this.faults.loseAnswer(call);
        return answer;
      }),
    );
  }
}

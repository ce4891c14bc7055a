import { CallHandler, ExecutionContext, Injectable, NestInterceptor, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { defer, map, Observable, switchMap } from 'rxjs';
import { UiChanges } from '../emulator.ui-changes';
import { FaultSettings } from './fault.settings';
import { RateLimited, RateLimits } from './rate-limits';

const SEARCH_LIMIT = 'hubspot-emulator:search-limit';

// Search counts against its own secondly limit and sends no rate-limit headers.
export const SearchLimit = (): MethodDecorator => SetMetadata(SEARCH_LIMIT, true);

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// What stands between an authorised call and its handler: injected latency, the portal's rate
// limits (headers set here stay on the answer, an error's too), injected errors and the UI changes
// queued before this call; after it, an answer lost on its way back.
@Injectable()
export class PortalLimitsInterceptor implements NestInterceptor {
  constructor(
    private readonly limits: RateLimits,
    private readonly faults: FaultSettings,
    private readonly uiChanges: UiChanges,
    private readonly reflector: Reflector,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const res = context.switchToHttp().getResponse<Response>();
    const req = context.switchToHttp().getRequest<Request>();
    const call = `${req.method} ${req.path}`;
    const search = this.reflector.get<boolean | undefined>(SEARCH_LIMIT, context.getHandler()) === true;
    return defer(async () => {
      const { latencyMs } = this.faults.faults;
      if (latencyMs > 0) await sleep(latencyMs);
      const now = Date.now();
      if (this.faults.takeBurst429()) throw new RateLimited('TEN_SECONDLY_ROLLING', this.limits.headers(now));
      this.faults.takeBurstLockOrMigration();
      if (search) this.limits.admitSearch(now);
      else for (const [name, value] of Object.entries(this.limits.admit(now))) res.setHeader(name, value);
      this.faults.maybeFail(call);
      // A person's edit lands the moment before the handler reads the record.
      this.uiChanges.beforeCall(call);
    }).pipe(
      switchMap(() => next.handle()),
      map((answer: unknown) => {
        this.faults.maybeLoseAnswer(call);
        return answer;
      }),
    );
  }
}

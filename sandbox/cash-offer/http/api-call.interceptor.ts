import { CallHandler, ExecutionContext, HttpStatus, Injectable, NestInterceptor } from '@nestjs/common';
import { HTTP_CODE_METADATA } from '@nestjs/common/constants';
import { Reflector } from '@nestjs/core';
import { concatMap, defer, Observable, switchMap } from 'rxjs';
import { FaultInjector, type FaultDecision } from '../fault.injector';
import { FixedWindowLimiter } from '../rate.limiter';
import { RATE_LIMIT_PER_SECOND, SpecReadings } from '../spec-readings';
import { ApiError } from '../sandbox.errors';
import { CallLog } from './call.log';
import { FaultDelays } from './fault.delays';
import { API_PREFIX, ApiCall, requestOf, urlOf } from './sandbox.request';

// The client's connection was destroyed on purpose; nothing is answered.
export class ConnectionDropped extends Error {}

// Faults on an authenticated API call, in the order docs/sandbox.md gives (the `rateLimit` reading's
// steady limit; drop the connection, rate limit, error, latency; after the handler, hang after
// commit, error after commit), then the call log entry.
@Injectable()
export class ApiCallInterceptor implements NestInterceptor {
  private readonly limiter = new FixedWindowLimiter(RATE_LIMIT_PER_SECOND);

  constructor(
    private readonly faults: FaultInjector,
    private readonly delays: FaultDelays,
    private readonly calls: CallLog,
    private readonly reflector: Reflector,
    private readonly readings: SpecReadings,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = requestOf(context);
    const call = req.apiCall as ApiCall;
    const path = urlOf(req).pathname.slice(API_PREFIX.length) || '/';
    const limited = this.steadyLimit(req.caller?.key);
    const decision = limited ?? this.faults.decide(req.method, path);
    const status =
      this.reflector.get<number | undefined>(HTTP_CODE_METADATA, context.getHandler()) ?? HttpStatus.OK;
    return defer(async () => {
      if (decision.kind === 'drop') {
        call.fault = 'drop-connection';
        this.calls.record(req, 0);
        req.socket.destroy();
        throw new ConnectionDropped();
      }
      if (decision.kind === 'rate-limit') {
        call.fault = 'rate-limit';
        if (decision.retryAfterSeconds === undefined)
          throw new ApiError(429, `too many requests: at most ${RATE_LIMIT_PER_SECOND} a second`);
        throw new ApiError(429, 'too many requests; retry after the time in Retry-After', {
          'retry-after': String(decision.retryAfterSeconds),
        });
      }
      if (decision.kind === 'error') {
        call.fault = 'error';
        throw new ApiError(decision.status, `injected fault: the service answered ${decision.status}`);
      }
      if (decision.latencyMs > 0) {
        call.fault = 'latency';
        await this.delays.wait(decision.latencyMs);
      }
      return decision;
    }).pipe(
      switchMap((passed) =>
        next.handle().pipe(
          concatMap(async (result: unknown) => {
            const { hangAfterCommitMs, errorAfterCommitStatus } = passed;
            if (hangAfterCommitMs > 0) {
              call.fault = 'hang-after-commit';
              await this.delays.wait(hangAfterCommitMs);
            }
            if (errorAfterCommitStatus !== undefined) {
              call.fault = 'error-after-commit';
              throw new ApiError(
                errorAfterCommitStatus,
                `injected fault: the service answered ${errorAfterCommitStatus} after storing the call's effect`,
              );
            }
            // A handler that answers under a spec reading sets its own code (ApiController.answer).
            const answered = (req.res?.locals as { answeredStatus?: number } | undefined)?.answeredStatus;
            this.calls.record(req, answered ?? status);
            return result;
          }),
        ),
      ),
    );
  }

  // The `rateLimit` reading: a gateway's steady limit per key, in wall-clock seconds (the sandbox's
  // own clock may be moved; a gateway counts real calls).
  private steadyLimit(key: string | undefined): FaultDecision | undefined {
    const reading = this.readings.current.rateLimit;
    if (reading === 'none' || key === undefined) return undefined;
    const taken = this.limiter.take(key, Date.now());
    if (taken.allowed) return undefined;
    return {
      kind: 'rate-limit',
      ...(reading === 'per-second' ? { retryAfterSeconds: taken.retryAfterSeconds } : {}),
    };
  }
}

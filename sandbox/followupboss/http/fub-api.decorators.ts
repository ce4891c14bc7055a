import { applyDecorators, Controller, UseGuards, UseInterceptors } from '@nestjs/common';
import { FubApiCallInterceptor } from './fub-api-call.interceptor';
import { FubAuthGuard } from './fub-auth.guard';
import { FubJsonBodyInterceptor } from './fub-json-body.interceptor';
import { FubRateLimitGuard } from './fub-rate-limit.guard';

// A controller of FUB's API v1: authenticated, rate limited, faulted, then its body read.
export function FubApiController(path: string): ClassDecorator {
  return applyDecorators(
    Controller(`v1/${path}`),
    UseGuards(FubAuthGuard, FubRateLimitGuard),
    UseInterceptors(FubApiCallInterceptor, FubJsonBodyInterceptor),
  );
}

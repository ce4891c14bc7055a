import { applyDecorators, UseGuards, UseInterceptors } from '@nestjs/common';
import { HubSpotReplyInterceptor } from './hubspot-reply.interceptor';
import { PortalLimitsInterceptor } from './portal-limits.interceptor';
import { ChecksScopes, PrivateAppGuard } from './private-app.guard';
import { RequestLogInterceptor } from './request-log.interceptor';

// A controller of HubSpot's CRM API: a private-app token with the call's scope, then latency, rate
// limits and faults, the request log and HubSpot's JSON answer (the first interceptor is the
// outermost, so the log sees the status the reply sets).
export function PortalApi(): ClassDecorator {
  return applyDecorators(
    UseGuards(PrivateAppGuard),
    ChecksScopes(),
    UseInterceptors(RequestLogInterceptor, PortalLimitsInterceptor, HubSpotReplyInterceptor),
  );
}

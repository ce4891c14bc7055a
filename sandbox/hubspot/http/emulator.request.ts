import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';

// One request on its way through the middleware, guard, interceptors and exception filter; written
// to the request log once, by whichever of them answers.
export interface EmulatorCall {
  started: number;
  logged: boolean;
}

export interface EmulatorRequest extends Request {
  emulatorCall?: EmulatorCall;
}

export function requestOf(context: ExecutionContext): EmulatorRequest {
  return context.switchToHttp().getRequest<EmulatorRequest>();
}

function urlOf(req: Request): URL {
  return new URL(req.originalUrl || req.url, 'http://emulator');
}

// The path as sent (not decoded), without a trailing slash: what scopes, 404 messages and the
// request log read.
export function pathOf(req: Request): string {
  const pathname = urlOf(req).pathname;
  return pathname.length > 1 ? pathname.replace(/\/$/, '') : pathname;
}

// The query string as URLSearchParams: array parameters arrive repeated or comma-joined.
export const SearchParams = createParamDecorator(
  (_: unknown, context: ExecutionContext): URLSearchParams => urlOf(requestOf(context)).searchParams,
);

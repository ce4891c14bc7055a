import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { SandboxAccount } from '../sandbox.types';

export const API_PREFIX = '/api/v2';
export const CONTROL_PREFIX = '/__control';

// One API call on its way through the guard, the interceptors and the exception filter; written to
// the call log once, by whichever of them answers.
export interface ApiCall {
  started: number;
  fault?: string;
  logged: boolean;
}

export interface SandboxRequest extends Request {
  caller?: SandboxAccount;
  apiCall?: ApiCall;
}

export function requestOf(context: ExecutionContext): SandboxRequest {
  return context.switchToHttp().getRequest<SandboxRequest>();
}

// The URL as the client sent it (pathname not decoded, query as URLSearchParams).
export function urlOf(req: Request): URL {
  return new URL(req.originalUrl || req.url, 'http://sandbox.local');
}

// The authenticated account (ApiKeyGuard put it there).
export const Caller = createParamDecorator(
  (_: unknown, context: ExecutionContext): SandboxAccount => requestOf(context).caller as SandboxAccount,
);

// The query string as URLSearchParams, the way the services read paging and filters.
export const SearchParams = createParamDecorator(
  (_: unknown, context: ExecutionContext): URLSearchParams => urlOf(requestOf(context)).searchParams,
);

import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';

export const CONTROL_PREFIX = '/__control';

export interface FubRequest extends Request {
  // When the API call began (the request log's `ms`).
  fubStarted?: number;
  // The X-System header of the call, when it came with a valid X-System-Key.
  fubSystem?: string;
}

export function requestOf(context: ExecutionContext): FubRequest {
  return context.switchToHttp().getRequest<FubRequest>();
}

// The URL as the client sent it; the path without a trailing slash, as FUB's routes read it.
export function urlOf(req: Request): URL {
  return new URL(req.originalUrl || req.url, 'http://emulator');
}

export function pathOf(req: Request): string {
  const { pathname } = urlOf(req);
  return pathname.length > 1 ? pathname.replace(/\/$/, '') : pathname;
}

export function isControl(req: Request): boolean {
  const path = pathOf(req);
  return path === CONTROL_PREFIX || path.startsWith(`${CONTROL_PREFIX}/`);
}

// The query string as URLSearchParams, the way the list readers take it.
export const SearchParams = createParamDecorator(
  (_: unknown, context: ExecutionContext): URLSearchParams => urlOf(requestOf(context)).searchParams,
);

// The registered system making the call (FubAuthGuard puts it there), or undefined.
export const System = createParamDecorator(
  (_: unknown, context: ExecutionContext): string | undefined => requestOf(context).fubSystem,
);

import { All, Controller, Req, RequestMethod, UseGuards, UseInterceptors } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import type { Request } from 'express';
import { notFound } from '../sandbox.errors';
import { ApiCallInterceptor } from './api-call.interceptor';
import { ApiController } from './api.controller';
import { ApiKeyGuard } from './api-key.guard';
import { API_PREFIX, CONTROL_PREFIX, urlOf } from './sandbox.request';

interface ServedRoute {
  method: string;
  segments: string[];
}

function split(path: string): string[] {
  return path.split('/').filter((s) => s !== '');
}

// The routes a controller serves, read from its Nest route metadata.
function servedRoutes(controller: new (...args: never[]) => object): ServedRoute[] {
  const proto = controller.prototype as Record<string, unknown>;
  return Object.getOwnPropertyNames(proto).flatMap((name) => {
    const handler = proto[name];
    if (typeof handler !== 'function') return [];
    const path = Reflect.getMetadata(PATH_METADATA, handler) as unknown;
    if (typeof path !== 'string') return [];
    const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod];
    return [{ method, segments: split(path) }];
  });
}

const API_ROUTES = servedRoutes(ApiController);

// Methods some API route answers on this path (for a clear 404 message).
function methodsFor(path: string): string[] {
  const parts = split(path);
  return API_ROUTES.filter(
    (r) =>
      r.segments.length === parts.length && r.segments.every((s, i) => s.startsWith(':') || s === parts[i]),
  ).map((r) => r.method);
}

function apiNotFound(req: Request): never {
  const pathname = urlOf(req).pathname;
  const allowed = methodsFor(pathname.slice(API_PREFIX.length));
  throw notFound(
    allowed.length > 0
      ? `${req.method} is not served on ${pathname}; use ${allowed.join(' or ')}`
      : `no endpoint ${req.method} ${pathname}`,
  );
}

function notServed(req: Request): never {
  const pathname = urlOf(req).pathname;
  if (pathname === CONTROL_PREFIX || pathname.startsWith(`${CONTROL_PREFIX}/`))
    throw notFound(`no control route ${req.method} ${pathname}`);
  throw notFound(`nothing is served at ${pathname}; the API is under ${API_PREFIX}`);
}

// An unknown API path is still an API call: authenticated, subject to faults and logged.
@Controller('api/v2')
@UseGuards(ApiKeyGuard)
@UseInterceptors(ApiCallInterceptor)
export class ApiNotFoundController {
  @All(['/', '{*path}'])
  notFound(@Req() req: Request): never {
    return apiNotFound(req);
  }
}

// Registered last: whatever no other route answered.
@Controller()
export class NotFoundController {
  @All('{*path}')
  notFound(@Req() req: Request): never {
    return notServed(req);
  }
}

import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { raw, type Request, type Response } from 'express';
import { from, Observable, switchMap } from 'rxjs';
import { ApiError } from '../sandbox.errors';
import { requestOf } from './sandbox.request';

export const MAX_BODY_BYTES = 1024 * 1024;
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

// express's raw body reader with the service's limit. An oversized body is still read to its end
// (and thrown away) so the client receives the 413 instead of a reset connection.
const readRaw = raw({ type: () => true, limit: MAX_BODY_BYTES, inflate: false });

function isJsonContentType(header: string | undefined): boolean {
  if (!header) return false;
  const type = header.split(';')[0].trim().toLowerCase();
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

function tooLarge(): ApiError {
  return new ApiError(413, `the body is over ${MAX_BODY_BYTES} bytes; the service accepts at most 1 MiB`, {
    connection: 'close',
  });
}

function rawBody(req: Request, res: Response): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    readRaw(req, res, (error?: Error & { type?: string; status?: number }) => {
      if (error === undefined) resolve(Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0));
      else if (error.type === 'entity.too.large') reject(tooLarge());
      // The reader's other refusals (an unsupported Content-Encoding, a body shorter than its length).
      else if (error.status !== undefined)
        reject(new ApiError(error.status, `the body could not be read: ${error.message}`));
      else reject(error);
    });
  });
}

// Reads a JSON body: 415 when it is not JSON, 413 over 1 MiB, 400 when it does not parse.
// An empty body reads as undefined (validators then say what is missing).
export async function readJsonBody(req: Request, res: Response): Promise<unknown> {
  const length = req.headers['content-length'];
  const hasBody = (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
  if (!hasBody) return undefined;
  if (!isJsonContentType(req.headers['content-type']))
    throw new ApiError(
      415,
      `the body must be JSON sent with Content-Type: application/json; got ${req.headers['content-type'] ?? 'no Content-Type'}`,
    );
  const text = (await rawBody(req, res)).toString('utf8');
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new ApiError(400, `the body is not valid JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
}

// Puts the parsed JSON body on the request for @Body(). It runs after authentication and faults
// (an unauthenticated or faulted call is answered without reading its body), so it is an
// interceptor and not express middleware.
@Injectable()
export class JsonBodyInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = requestOf(context);
    if (!BODY_METHODS.has(req.method)) return next.handle();
    const res = context.switchToHttp().getResponse<Response>();
    return from(readJsonBody(req, res)).pipe(
      switchMap((body) => {
        req.body = body;
        return next.handle();
      }),
    );
  }
}

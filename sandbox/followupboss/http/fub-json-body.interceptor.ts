import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { raw, type Request, type Response } from 'express';
import { from, Observable, switchMap } from 'rxjs';
import { FubHttpError } from '../fub-emulator.types';
import { requestOf } from './fub.request';

const MAX_BODY_BYTES = 5 * 1024 * 1024;

// express's raw reader: any Content-Type is read as JSON (FUB's clients and the tests' control
// calls do not always send one), and an oversized body is read to its end so the client gets
// the 413 instead of a reset connection.
const readRaw = raw({ type: () => true, limit: MAX_BODY_BYTES, inflate: false });

function rawBody(req: Request, res: Response): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    readRaw(req, res, (error?: Error & { type?: string; status?: number }) => {
      if (error === undefined) resolve(Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0));
      else if (error.type === 'entity.too.large') reject(new FubHttpError(413, 'Request body too large'));
      else if (error.status !== undefined) reject(new FubHttpError(error.status, error.message));
      else reject(error);
    });
  });
}

// An empty body reads as undefined; one that does not parse is FUB's 400.
export async function readJsonBody(req: Request, res: Response): Promise<unknown> {
  const body = await rawBody(req, res);
  if (body.length === 0) return undefined;
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    throw new FubHttpError(400, 'Invalid JSON body');
  }
}

// Puts the parsed body on the request for @Body(), after authentication, the rate limit and the
// faults (a refused call is answered without reading its body), hence an interceptor.
@Injectable()
export class FubJsonBodyInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = requestOf(context);
    const res = context.switchToHttp().getResponse<Response>();
    return from(readJsonBody(req, res)).pipe(
      switchMap((body) => {
        req.body = body;
        return next.handle();
      }),
    );
  }
}

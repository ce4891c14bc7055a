import { Injectable, NestMiddleware } from '@nestjs/common';
import { raw, type Response } from 'express';
import { HubSpotHttpError } from '../emulator.errors';
import type { EmulatorRequest } from './emulator.request';

const MAX_BODY_BYTES = 10 * 1024 * 1024;

// express's raw body reader with HubSpot's limit, whatever the Content-Type (curl and fetch send
// JSON as text/plain too). An oversized body is still read to its end and thrown away, so the
// client receives the 413 instead of a reset connection.
const readRaw = raw({ type: () => true, limit: MAX_BODY_BYTES, inflate: false });

function rawBody(req: EmulatorRequest, res: Response): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    readRaw(req, res, (error?: Error & { type?: string; status?: number }) => {
      if (error === undefined) resolve(Buffer.isBuffer(req.body) ? req.body : undefined);
      else if (error.type === 'entity.too.large')
        reject(new HubSpotHttpError(413, 'VALIDATION_ERROR', 'Request body too large'));
      else if (error.status !== undefined)
        reject(
          new HubSpotHttpError(
            error.status,
            'VALIDATION_ERROR',
            `The body could not be read: ${error.message}`,
          ),
        );
      else reject(error);
    });
  });
}

// Every request, control calls included, starts here: its log entry is timed from now, and its body
// is read as JSON before anything else looks at it (an empty body reads as undefined).
@Injectable()
export class JsonBodyMiddleware implements NestMiddleware {
  async use(req: EmulatorRequest, res: Response, next: () => void): Promise<void> {
    req.emulatorCall = { started: Date.now(), logged: false };
    const body = await rawBody(req, res);
    req.body = undefined;
    if (body !== undefined && body.length > 0) {
      try {
        req.body = JSON.parse(body.toString('utf8')) as unknown;
      } catch {
        throw new HubSpotHttpError(
          400,
          'VALIDATION_ERROR',
          'Invalid input JSON on line 1: the body is not valid JSON',
        );
      }
    }
    next();
  }
}

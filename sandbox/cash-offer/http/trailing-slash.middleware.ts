import { Injectable, type NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { SpecReadings } from '../spec-readings';
import { API_PREFIX } from './sandbox.request';

// The `trailingSlash: redirect` reading: a service whose routes end in a slash (the quickstart writes
// `PATCH /offers/`) answers the other form with 307 and the slashed path, as web frameworks commonly
// do (FastAPI's redirect_slashes, Django's APPEND_SLASH for GETs); method and body are to be sent
// again. Before authentication, as a framework's router does.
@Injectable()
export class TrailingSlashMiddleware implements NestMiddleware {
  constructor(private readonly readings: SpecReadings) {}

  use(req: Request, res: Response, next: NextFunction): void {
    if (this.readings.current.trailingSlash !== 'redirect') return next();
    const url = new URL(req.originalUrl, 'http://sandbox');
    if (!url.pathname.startsWith(`${API_PREFIX}/`) || url.pathname.endsWith('/')) return next();
    res.status(307).setHeader('location', `${url.pathname}/${url.search}`);
    res.end();
  }
}

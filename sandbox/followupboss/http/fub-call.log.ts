import { Injectable } from '@nestjs/common';
import type { Response } from 'express';
import type { RequestLogEntry } from '../fub-emulator.types';
import { pathOf, type FubRequest } from './fub.request';

const MAX_LOG = 10_000;

// API answers for GET /__control/log (the last 10,000) and /__control/stats (all since reset).
@Injectable()
export class FubCallLog {
  readonly entries: RequestLogEntry[] = [];
  readonly stats = new Map<string, number>();

  // Whatever answers the call (a controller, a guard's refusal, the exception filter), it is
  // logged once, with the status that went out.
  watch(req: FubRequest, res: Response): void {
    const started = Date.now();
    req.fubStarted = started;
    res.once('finish', () => this.record(req.method, pathOf(req), res.statusCode, started));
  }

  clear(): void {
    this.entries.length = 0;
    this.stats.clear();
  }

  private record(method: string, path: string, status: number, started: number): void {
    const key = `${method} ${status}`;
    this.stats.set(key, (this.stats.get(key) ?? 0) + 1);
    this.entries.push({ method, path, status, ms: Date.now() - started, at: new Date().toISOString() });
    if (this.entries.length > MAX_LOG) this.entries.splice(0, this.entries.length - MAX_LOG);
  }
}

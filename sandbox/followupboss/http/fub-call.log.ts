import { Injectable } from '@nestjs/common';
import type { Response } from 'express';
import type { RequestLogEntry } from '../fub-emulator.types';
import { pathOf, type FubRequest } from './fub.request';

const MAX_LOG = 10_000;
const MAX_WRITES = 20_000;
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

// API answers for GET /__control/log (the last 10,000), /__control/writes (the last 20,000 writes,
// each with its body and caller: which write left a record as it is, when reads crowd them out of
// the log) and /__control/stats (all since reset).
@Injectable()
export class FubCallLog {
  readonly entries: RequestLogEntry[] = [];
  readonly writes: RequestLogEntry[] = [];
  readonly stats = new Map<string, number>();

  // Whatever answers the call (a controller, a guard's refusal, the exception filter), it is
  // logged once, with the status that went out.
  watch(req: FubRequest, res: Response): void {
    const started = Date.now();
    req.fubStarted = started;
    res.once('finish', () => this.record(req, res.statusCode, started));
  }

  clear(): void {
    this.entries.length = 0;
    this.writes.length = 0;
    this.stats.clear();
  }

  private record(req: FubRequest, status: number, started: number): void {
    const { method } = req;
    const key = `${method} ${status}`;
    this.stats.set(key, (this.stats.get(key) ?? 0) + 1);
    const entry: RequestLogEntry = {
      method,
      path: pathOf(req),
      status,
      ms: Date.now() - started,
      at: new Date(started).toISOString(),
      system: req.fubSystem ?? null,
    };
    push(this.entries, entry, MAX_LOG);
    if (!READS.has(method)) push(this.writes, { ...entry, body: req.body as unknown }, MAX_WRITES);
  }
}

function push(list: RequestLogEntry[], entry: RequestLogEntry, max: number): void {
  list.push(entry);
  if (list.length > max) list.splice(0, list.length - max);
}

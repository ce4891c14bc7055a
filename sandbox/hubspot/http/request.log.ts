import { Injectable } from '@nestjs/common';
import type { RequestLogEntry } from '../emulator.types';
import { EmulatorRequest, pathOf } from './emulator.request';

// GET /__control/requests: every API call with its status, written once before its answer goes out.
@Injectable()
export class RequestLog {
  readonly entries: RequestLogEntry[] = [];

  record(req: EmulatorRequest, status: number): void {
    const call = req.emulatorCall;
    if (!call || call.logged) return;
    call.logged = true;
    this.entries.push({
      method: req.method,
      path: pathOf(req),
      status,
      time: new Date(call.started).toISOString(),
      durationMs: Date.now() - call.started,
    });
  }

  clear(): void {
    this.entries.length = 0;
  }
}

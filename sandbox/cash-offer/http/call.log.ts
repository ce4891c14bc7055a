import { Injectable } from '@nestjs/common';
import { SandboxClock } from '../sandbox.clock';
import { SandboxStore } from '../sandbox.store';
import { SandboxRequest, urlOf } from './sandbox.request';

// Writes an API call to GET /__control/calls, once, before its answer goes out.
@Injectable()
export class CallLog {
  constructor(
    private readonly store: SandboxStore,
    private readonly clock: SandboxClock,
  ) {}

  record(req: SandboxRequest, status: number): void {
    const call = req.apiCall;
    if (!call || call.logged) return;
    call.logged = true;
    const dropped = status === 0;
    this.store.logCall({
      method: req.method,
      path: urlOf(req).pathname,
      status,
      at: this.clock.nowIso(),
      duration_ms: dropped ? 0 : Math.round((performance.now() - call.started) * 1000) / 1000,
      fault: call.fault,
    });
  }
}

import { Injectable } from '@nestjs/common';
import { HubSpotHttpError } from '../emulator.errors';
import type { Faults } from '../emulator.types';

function noFaults(): Faults {
  return { errorRate: 0, errorStatus: 500, burst429: 0, latencyMs: 0 };
}

// The faults PUT /__control/faults sets: latency, a burst of 429s, a rate of injected errors.
@Injectable()
export class FaultSettings {
  faults: Faults = noFaults();

  reset(): void {
    this.faults = noFaults();
  }

  // True for each of the next `burst429` calls.
  takeBurst429(): boolean {
    if (this.faults.burst429 <= 0) return false;
    this.faults.burst429--;
    return true;
  }

  maybeFail(): void {
    if (this.faults.errorRate > 0 && Math.random() < this.faults.errorRate) {
      const status = this.faults.errorStatus || 500;
      throw new HubSpotHttpError(status, 'INTERNAL_ERROR', `Injected fault: HTTP ${status}`);
    }
  }
}

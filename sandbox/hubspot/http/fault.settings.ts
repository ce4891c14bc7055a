import { Injectable } from '@nestjs/common';
import { callMatches } from '../../call-match';
import { HubSpotHttpError } from '../emulator.errors';
import type { Faults } from '../emulator.types';

function noFaults(): Faults {
  return {
    errorRate: 0,
    errorStatus: 500,
    burst429: 0,
    burst423: 0,
    burst477: 0,
    retryAfter477Seconds: 3600,
    latencyMs: 0,
    errorAfterCommitRate: 0,
    errorAfterCommitStatus: 502,
    match: null,
  };
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

  // A lock or a migration (HubSpot's documented 423 and 477) for each of the next calls asked for.
  takeBurstLockOrMigration(): void {
    if (this.faults.burst423 > 0) {
      this.faults.burst423--;
      // The page shows no body for either; the emulator's usual error shape carries them.
      throw new HubSpotHttpError(423, 'LOCKED', 'Locked: too much data is being synced; retry in 2 seconds');
    }
    if (this.faults.burst477 > 0) {
      this.faults.burst477--;
      throw new HubSpotHttpError(
        477,
        'MIGRATION_IN_PROGRESS',
        'Migration in progress',
        {},
        {
          'retry-after': String(this.faults.retryAfter477Seconds),
        },
      );
    }
  }

  // Before the handler: an error at errorRate, for a call `match` takes (`<METHOD> <path>`).
  maybeFail(call: string): void {
    if (!this.matches(call)) return;
    if (this.faults.errorRate > 0 && Math.random() < this.faults.errorRate) {
      const status = this.faults.errorStatus || 500;
      throw new HubSpotHttpError(status, 'INTERNAL_ERROR', `Injected fault: HTTP ${status}`);
    }
  }

  // After the handler stored the call: its answer replaced by an error at errorAfterCommitRate.
  maybeLoseAnswer(call: string): void {
    if (!this.matches(call)) return;
    const { errorAfterCommitRate: rate } = this.faults;
    if (rate > 0 && Math.random() < rate) {
      const status = this.faults.errorAfterCommitStatus || 502;
      throw new HubSpotHttpError(
        status,
        'BAD_GATEWAY',
        `Injected fault: HTTP ${status} after the call was handled`,
      );
    }
  }

  private matches(call: string): boolean {
    return callMatches(this.faults.match, call);
  }
}

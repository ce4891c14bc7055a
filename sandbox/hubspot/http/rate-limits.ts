import { Inject, Injectable } from '@nestjs/common';
import { RollingWindow } from '../emulator.rate-limit';
import type { RateLimitSetting } from '../emulator.types';
import { EMULATOR_OPTIONS, type EmulatorOptions } from './emulator.options';

const DAILY_LIMIT = 1_000_000;

export type RateLimitPolicy = 'TEN_SECONDLY_ROLLING' | 'SECONDLY';

// A request over one of the portal's limits; the exception filter answers HubSpot's 429.
export class RateLimited extends Error {
  constructor(
    readonly policy: RateLimitPolicy,
    readonly headers: Record<string, string>,
  ) {
    super(policy);
  }
}

function perSecond(value: number | null): RateLimitSetting | null {
  return value === null ? null : { max: value, intervalMs: 1000 };
}

// The portal's burst limit (with HubSpot's X-HubSpot-RateLimit-* headers) and the search API's own
// secondly limit, which sends no headers.
@Injectable()
export class RateLimits {
  private readonly general: RollingWindow;
  private readonly search: RollingWindow;
  private dailyUsed = 0;
  // What the portal admitted and refused with a 429 since start, by limit: tests and benches read
  // these to show a client kept to the published limits.
  readonly counts = { generalAdmitted: 0, generalRejected: 0, searchAdmitted: 0, searchRejected: 0 };

  constructor(@Inject(EMULATOR_OPTIONS) private readonly options: EmulatorOptions) {
    this.general = new RollingWindow(options.rateLimit);
    this.search = new RollingWindow(perSecond(options.searchPerSecond));
  }

  get rateLimit(): RateLimitSetting | null {
    return this.general.setting;
  }
  set rateLimit(value: RateLimitSetting | null) {
    this.general.setting = value;
    this.general.reset();
  }
  get searchPerSecond(): number | null {
    return this.search.setting?.max ?? null;
  }
  set searchPerSecond(value: number | null) {
    this.search.setting = perSecond(value);
    this.search.reset();
  }

  // Back to the limits the emulator was started with; the daily count carries on.
  reset(): void {
    this.rateLimit = this.options.rateLimit;
    this.searchPerSecond = this.options.searchPerSecond;
  }

  // Counts a general API call; answers the headers to send with it.
  admit(now: number): Record<string, string> {
    if (!this.general.tryTake(now)) {
      this.counts.generalRejected++;
      throw new RateLimited('TEN_SECONDLY_ROLLING', this.headers(now));
    }
    this.counts.generalAdmitted++;
    this.dailyUsed++;
    return this.headers(now);
  }

  admitSearch(now: number): void {
    if (!this.search.tryTake(now)) {
      this.counts.searchRejected++;
      throw new RateLimited('SECONDLY', {});
    }
    this.counts.searchAdmitted++;
  }

  headers(now: number): Record<string, string> {
    const setting = this.general.setting;
    return {
      'X-HubSpot-RateLimit-Daily': String(DAILY_LIMIT),
      'X-HubSpot-RateLimit-Daily-Remaining': String(Math.max(0, DAILY_LIMIT - this.dailyUsed)),
      ...(setting
        ? {
            'X-HubSpot-RateLimit-Interval-Milliseconds': String(setting.intervalMs),
            'X-HubSpot-RateLimit-Max': String(setting.max),
            'X-HubSpot-RateLimit-Remaining': String(this.general.remaining(now)),
          }
        : {}),
    };
  }
}

import { Inject, Injectable } from '@nestjs/common';
import { SlidingWindow, type Admission } from '../fub-emulator.rate-limit';
import type { RateLimitSetting } from '../fub-emulator.types';
import { FUB_SETTINGS, type FubEmulatorSettings } from './fub.settings';

// The account's one `global` window, changed through /__control/settings and back to the
// configured limit on reset.
@Injectable()
export class FubRateLimiter {
  private readonly window: SlidingWindow;

  constructor(@Inject(FUB_SETTINGS) private readonly settings: FubEmulatorSettings) {
    this.window = new SlidingWindow(settings.rateLimit);
  }

  get setting(): RateLimitSetting | null {
    return this.window.setting;
  }

  set setting(value: RateLimitSetting | null) {
    this.window.setting = value;
    this.window.reset();
  }

  admit(registered: boolean): Admission {
    return this.window.admit(this.settings.apiKey, registered, Date.now());
  }

  reset(): void {
    this.setting = this.settings.rateLimit;
  }
}

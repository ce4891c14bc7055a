import type { RateLimitSetting } from './fub-emulator.types';

export interface Admission {
  ok: boolean;
  headers: Record<string, string>;
  retryAfterS?: number;
}

// FUB's sliding 10 s window per context (crm-apis.md B4/B6): every answer carries
// X-RateLimit-Limit/-Remaining/-Window/-Context; a call over the limit gets 429 with Retry-After
// in seconds. The emulator has the `global` context; a call without a valid X-System-Key gets half.
export class SlidingWindow {
  private readonly calls = new Map<string, number[]>();

  constructor(public setting: RateLimitSetting | null) {}

  reset(): void {
    this.calls.clear();
  }

  admit(bucket: string, registered: boolean, now: number): Admission {
    if (!this.setting) return { ok: true, headers: {} };
    const { windowMs } = this.setting;
    const max = registered ? this.setting.max : Math.max(1, Math.floor(this.setting.max / 2));
    const times = (this.calls.get(bucket) ?? []).filter((t) => t > now - windowMs);
    this.calls.set(bucket, times);
    const headers = (remaining: number): Record<string, string> => ({
      'X-RateLimit-Limit': String(max),
      'X-RateLimit-Remaining': String(Math.max(0, remaining)),
      'X-RateLimit-Window': String(Math.round(windowMs / 1000)),
      'X-RateLimit-Context': 'global',
    });
    if (times.length >= max) {
      const retryAfterS = Math.max(1, Math.ceil((times[0] + windowMs - now) / 1000));
      return { ok: false, headers: { ...headers(0), 'Retry-After': String(retryAfterS) }, retryAfterS };
    }
    times.push(now);
    return { ok: true, headers: headers(max - times.length) };
  }
}

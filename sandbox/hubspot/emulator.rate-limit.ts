import type { RateLimitSetting } from './emulator.types';

// A true rolling window, as HubSpot's TEN_SECONDLY_ROLLING policy is named: a request counts
// for exactly `intervalMs` after it arrived. Rejected requests do not count.
export class RollingWindow {
  private readonly arrivals: number[] = [];
  private head = 0;

  constructor(public setting: RateLimitSetting | null) {}

  tryTake(now: number): boolean {
    if (!this.setting) return true;
    this.expire(now);
    if (this.arrivals.length - this.head >= this.setting.max) return false;
    this.arrivals.push(now);
    return true;
  }

  remaining(now: number): number {
    if (!this.setting) return Number.MAX_SAFE_INTEGER;
    this.expire(now);
    return Math.max(0, this.setting.max - (this.arrivals.length - this.head));
  }

  reset(): void {
    this.arrivals.length = 0;
    this.head = 0;
  }

  private expire(now: number): void {
    const from = now - this.setting!.intervalMs;
    while (this.head < this.arrivals.length && this.arrivals[this.head] <= from) this.head++;
    if (this.head > 1024 && this.head * 2 > this.arrivals.length) {
      this.arrivals.splice(0, this.head);
      this.head = 0;
    }
  }
}

// HubSpot's burst limit per private app by the account's tier (usage guidelines, crm-apis.md A8).
export type AccountTier = 'free' | 'starter' | 'professional' | 'enterprise' | 'api-limit-increase';
export const ACCOUNT_TIERS: readonly AccountTier[] = [
  'free',
  'starter',
  'professional',
  'enterprise',
  'api-limit-increase',
];
const TIER_MAX: Record<AccountTier, number> = {
  free: 100,
  starter: 100,
  professional: 190,
  enterprise: 190,
  'api-limit-increase': 250,
};

export function tierRateLimit(tier: AccountTier): RateLimitSetting {
  return { max: TIER_MAX[tier], intervalMs: 10_000 };
}

export function isAccountTier(value: unknown): value is AccountTier {
  return typeof value === 'string' && (ACCOUNT_TIERS as readonly string[]).includes(value);
}

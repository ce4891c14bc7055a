import { backoffDelayMs, type BackoffCurve } from '../common/backoff';
import { isJobKeyOf } from './job-key';

export interface BackoffState {
  consecutiveFailures: number;
  ticksToSkip: number;
}

export const MAX_SKIPPED_TICKS = 32;
// The shared backoff curve counted in cron ticks rather than milliseconds: 1, 2, 4 ... 32 ticks.
const SKIPPED_TICKS: BackoffCurve = { baseMs: 1, capMs: MAX_SKIPPED_TICKS, jitter: 'none' };

// After n consecutive failures a job skips 2^(n-1) cron ticks (capped), so a broken brokerage or
// remote does not get hammered while the other jobs keep their own pace. A success resets it.
// No constructor dependencies, so Nest builds it without @Injectable (and unit tests need no Nest).
export class JobBackoff {
  private readonly states = new Map<string, BackoffState>();

  // True when this tick should be skipped (and counts it as skipped).
  shouldSkip(key: string): boolean {
    const state = this.states.get(key);
    if (!state || state.ticksToSkip === 0) return false;
    state.ticksToSkip -= 1;
    return true;
  }

  recordFailure(key: string): BackoffState {
    const previous = this.states.get(key)?.consecutiveFailures ?? 0;
    const consecutiveFailures = previous + 1;
    const state = {
      consecutiveFailures,
      ticksToSkip: backoffDelayMs(SKIPPED_TICKS, consecutiveFailures),
    };
    this.states.set(key, state);
    return { ...state };
  }

  recordSuccess(key: string): void {
    this.states.delete(key);
  }

  state(key: string): BackoffState {
    return { ...(this.states.get(key) ?? { consecutiveFailures: 0, ticksToSkip: 0 }) };
  }

  // Keys are jobKey()s; a brokerage removed from the config leaves nothing behind.
  forgetBrokerage(brokerageId: string): void {
    for (const key of [...this.states.keys()]) if (isJobKeyOf(key, brokerageId)) this.states.delete(key);
  }
}

import { callMatches } from '../../call-match';
import { Injectable } from '@nestjs/common';
import { FubHttpError, type Faults } from '../fub-emulator.types';

const NO_FAULTS: Faults = {
  errorRate: 0,
  errorStatus: 500,
  burst429: 0,
  errorAfterCommitRate: 0,
  errorAfterCommitStatus: 502,
  systemOnly: false,
  match: null,
  latencyMs: 0,
  answerDelayMs: 0,
};

// The API faults set through /__control/faults.
@Injectable()
export class FubFaultInjector {
  current: Faults = { ...NO_FAULTS };
  private readonly waits = new Set<NodeJS.Timeout>();

  clear(): void {
    this.current = { ...NO_FAULTS };
  }

  delay(): Promise<void> {
    return this.wait(this.current.latencyMs);
  }

  delayAnswer(): Promise<void> {
    return this.wait(this.current.answerDelayMs);
  }

  // A burst 429 (counted off) or an error at the configured rate, as FUB's own answers, for a call
  // the faults' `match` takes (`call`: `<METHOD> <path under /v1>`).
  inject(call: string, system?: string): void {
    if (!this.matches(call, system)) return;
    if (this.current.burst429 > 0) {
      this.current.burst429--;
      throw new FubHttpError(429, 'Too many requests. Please wait before making more requests.', {
        'X-RateLimit-Remaining': '0',
        'Retry-After': '1',
      });
    }
    if (this.current.errorRate > 0 && Math.random() < this.current.errorRate)
      throw new FubHttpError(this.current.errorStatus, 'Injected fault');
  }

  // After the call was handled: its answer replaced by an error at errorAfterCommitRate.
  loseAnswer(call: string, system?: string): void {
    if (!this.matches(call, system)) return;
    const { errorAfterCommitRate: rate } = this.current;
    if (rate > 0 && Math.random() < rate)
      throw new FubHttpError(this.current.errorAfterCommitStatus || 502, 'Bad gateway');
  }

  private matches(call: string, system: string | undefined): boolean {
    if (this.current.systemOnly && !system) return false;
    return callMatches(this.current.match, call);
  }

  private async wait(ms: number): Promise<void> {
    if (ms <= 0) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.waits.delete(timer);
        resolve();
      }, ms);
      this.waits.add(timer);
    });
  }

  // A closed emulator leaves no timers behind (the waiting calls' connections are closed with it).
  close(): void {
    for (const timer of this.waits) clearTimeout(timer);
    this.waits.clear();
  }
}

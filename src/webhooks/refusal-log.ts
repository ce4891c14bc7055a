import type { Logger } from '@nestjs/common';
import type { Clock } from '../common/clock';

// Refusals are logged as warnings at most this often per brokerage (the rest at debug), so a flood
// of forged deliveries cannot flood the log; the intakes' metrics count every one.
const WARN_EVERY_MS = 60_000;

export class RefusalLog {
  private readonly lastWarned = new Map<string, number>();

  constructor(
    private readonly logger: Pick<Logger, 'warn' | 'debug'>,
    private readonly clock: Clock,
  ) {}

  // `key`: the brokerage refused, or one key for every unknown one.
  warn(key: string, line: string): void {
    const now = this.clock.nowMs();
    const last = this.lastWarned.get(key);
    if (last !== undefined && now - last < WARN_EVERY_MS) return this.logger.debug(line);
    this.lastWarned.set(key, now);
    this.logger.warn(line);
  }
}

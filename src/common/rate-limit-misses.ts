import type { Clock } from './clock';

export interface WarnLogger {
  warn(message: string): void;
}

// 429s the rate limiters should have prevented: each remote's limiter keeps to the published
// limit, so a 429 means the budget was wrong (another client on the account, a limit lowered) or
// a bug. Each is counted (the metric cash_offer_sync_rate_limit_misses_total{remote}) and retried
// after the wait the remote asks for; the log says so at most once per interval and remote, with
// the count, instead of a line per retry, so a burst of them cannot bury the log.
export class RateLimitMisses {
  private readonly byRemote = new Map<string, { unlogged: number; loggedAtMs?: number }>();

  constructor(
    private readonly clock: Clock,
    private readonly logger: WarnLogger,
    private readonly count: (remote: string) => void = () => undefined,
    private readonly intervalMs = 60_000,
  ) {}

  record(remote: string, account: string): void {
    this.count(remote);
    const entry = this.byRemote.get(remote) ?? { unlogged: 0 };
    this.byRemote.set(remote, entry);
    entry.unlogged++;
    const now = this.clock.nowMs();
    if (entry.loggedAtMs !== undefined && now - entry.loggedAtMs < this.intervalMs) return;
    const since =
      entry.loggedAtMs === undefined ? '' : ` in the last ${Math.round((now - entry.loggedAtMs) / 1000)} s`;
    this.logger.warn(
      `${entry.unlogged} call(s) to ${remote} answered 429${since} (latest: ${account}) although the rate limiter let them out; retried after the wait asked (cash_offer_sync_rate_limit_misses_total)`,
    );
    entry.unlogged = 0;
    entry.loggedAtMs = now;
  }
}

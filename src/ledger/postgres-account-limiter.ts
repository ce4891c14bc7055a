import {
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterQueue,
  type IRateLimiterStoreOptions,
} from 'rate-limiter-flexible';
import type { DataSource } from 'typeorm';
import type { RateLimit } from '../common/rate-limit';
import type { SharedAccountLimiter } from '../common/shared-account-limiter';

// rate-limiter-flexible's table, in the ledger's database: created by a ledger migration
// (1764200000000-account-rate-limits), never by the library, whose CREATE TABLE IF NOT EXISTS races
// when several limiters or workers start at once.
const TABLE = 'account_rate_limits';
// The turn counter never runs out within a key's life (it restarts at 0 if its row is ever lost).
const TURNS_PER_COUNTER = 2 ** 31 - 1;

interface Budget {
  // Counts the account's calls across every worker: each call's number picks its slot.
  turns: RateLimiterPostgres;
  // `max` slots per account, each one call per window (a window opened by the call that takes it).
  slots: RateLimiterQueue;
}

// Remote accounts' budgets shared by every worker of a PostgreSQL ledger, on rate-limiter-flexible's
// PostgreSQL store (the library every local limiter is on): rows updated atomically by whichever
// worker calls. The remotes count rolling windows with their whole burst, so the budget is the
// local limiter's (common/rolling-window.limiter.ts) made shared: `max` one-call slots of a window
// per account, taken in turn by the calls' shared numbers, so the (i+max)-th call of all workers
// leaves at least a window after the i-th. A call whose slot is still taken waits for it; the
// retry that takes it lands one timer and one round trip after the slot frees, a delay lost once
// per window per slot, not once per call as when pacing one call per window/max. If PostgreSQL
// cannot answer, each worker counts alone (the library's insurance limiters, in memory).
export class PostgresAccountLimiter implements SharedAccountLimiter {
  private readonly budgets = new Map<string, Budget>();

  constructor(private readonly dataSource: DataSource) {}

  async acquire(account: string, limit: RateLimit): Promise<void> {
    const { turns, slots } = this.budgetFor(limit);
    const turn = await turns.consume(account);
    const slot = (turn.consumedPoints - 1) % Math.max(1, Math.floor(limit.max));
    await slots.removeTokens(1, `${account}:${slot}`);
  }

  // One pair of limiters per distinct budget; accounts are keys within them.
  private budgetFor(limit: RateLimit): Budget {
    const id = `${limit.max}/${limit.intervalMs}`;
    let budget = this.budgets.get(id);
    if (!budget) {
      budget = {
        // Duration 0: the count never expires.
        turns: this.store({ points: TURNS_PER_COUNTER, duration: 0, keyPrefix: `turns${id}` }),
        // Whole milliseconds, rounded up, as the local limiter (a window must not end early).
        slots: new RateLimiterQueue(
          this.store({ points: 1, duration: Math.ceil(limit.intervalMs) / 1000, keyPrefix: `slots${id}` }),
        ),
      };
      this.budgets.set(id, budget);
    }
    return budget;
  }

  private store(
    options: Pick<IRateLimiterStoreOptions, 'points' | 'duration' | 'keyPrefix'>,
  ): RateLimiterPostgres {
    return new RateLimiterPostgres({
      ...options,
      storeClient: this.dataSource,
      storeType: 'typeorm',
      tableName: TABLE,
      tableCreated: true,
      clearExpiredByTimeout: true,
      insuranceLimiter: new RateLimiterMemory(options),
    });
  }
}

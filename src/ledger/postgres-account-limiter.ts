import {
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRes,
  type IRateLimiterStoreOptions,
} from 'rate-limiter-flexible';
import type { DataSource } from 'typeorm';
import type { EndTurn, RateLimit } from '../common/rate-limit';
import type { SharedAccountLimiter } from '../common/shared-account-limiter';

// rate-limiter-flexible's table, in the ledger's database: created by a ledger migration
// (1764200000000-account-rate-limits), never by the library, whose CREATE TABLE IF NOT EXISTS races
// when several limiters or workers start at once.
const TABLE = 'account_rate_limits';
// The turn counter never runs out within a key's life (it restarts at 0 if its row is ever lost).
const TURNS_PER_COUNTER = 2 ** 31 - 1;
// How often a call waiting for a slot whose call is still out (on another worker) looks again.
const IN_FLIGHT_POLL_MS = 100;

interface Budget {
  // Counts the account's calls across every worker: each call's number picks its slot.
  turns: RateLimiterPostgres;
  // `max` slots per account, each held by one call from its turn until a window after it settled.
  slots: RateLimiterPostgres;
  windowMs: number;
}

// Remote accounts' budgets shared by every worker of a PostgreSQL ledger, on rate-limiter-flexible's
// PostgreSQL store: rows updated atomically by whichever worker calls. The remotes count a call
// when it arrives, so the budget is the local limiter's (common/rolling-window.limiter.ts) made
// shared: `max` slots per account, taken in turn by the calls' shared numbers; a slot's row is
// held while its call is out (at most the client's longest call time, so a worker that dies with a
// call out holds the slot only that long: account-limiter.factory.ts) and, when the call settled, set to expire a window later. The (i+max)-th
// call of all workers therefore leaves at least a window after the i-th settled, which is after
// the remote counted it. A call whose slot is in its window waits exactly for the window's end
// (one timer and one round trip late); one whose slot's call is still out, on this worker or
// another, looks again every IN_FLIGHT_POLL_MS. If PostgreSQL cannot answer, each worker counts
// alone (the library's insurance limiters, in memory).
export class PostgresAccountLimiter implements SharedAccountLimiter {
  private readonly budgets = new Map<string, Budget>();

  constructor(private readonly dataSource: DataSource) {}

  async acquire(account: string, limit: RateLimit, longestCallMs: number): Promise<EndTurn> {
    const { turns, slots, windowMs } = this.budgetFor(limit, longestCallMs);
    const turn = await turns.consume(account);
    const slot = `${account}:${(turn.consumedPoints - 1) % Math.max(1, Math.floor(limit.max))}`;
    const heldSince = await this.take(slots, slot, windowMs);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      // A call out for half of its longest time leaves its row to run out by itself: close to the
      // row's end, another call may hold the slot by the time this write lands. If the write
      // fails, the slot stays held until its row runs out: late, never early.
      if (Date.now() - heldSince < longestCallMs / 2)
        slots.set(slot, 1, windowMs / 1000).catch(() => undefined);
    };
  }

  // Takes the slot; answers a time no later than the start of its row's hold.
  private async take(slots: RateLimiterPostgres, slot: string, windowMs: number): Promise<number> {
    for (;;) {
      const asked = Date.now();
      try {
        await slots.consume(slot);
        return asked;
      } catch (refused) {
        if (!(refused instanceof RateLimiterRes)) throw refused;
        // More than a window left: the slot's call is still out; its end will shorten the wait.
        const wait = refused.msBeforeNext > windowMs ? IN_FLIGHT_POLL_MS : refused.msBeforeNext;
        await new Promise((resolve) => setTimeout(resolve, Math.max(1, wait)));
      }
    }
  }

  // One pair of limiters per distinct budget; accounts are keys within them. Clients of one account
  // with different call times share its rows (the key prefix is the budget's): each row keeps the
  // hold it was taken with.
  private budgetFor(limit: RateLimit, longestCallMs: number): Budget {
    const id = `${limit.max}/${limit.intervalMs}`;
    let budget = this.budgets.get(`${id}:${longestCallMs}`);
    if (!budget) {
      budget = {
        // Duration 0: the count never expires.
        turns: this.store({ points: TURNS_PER_COUNTER, duration: 0, keyPrefix: `turns${id}` }),
        // Held while the call is out; a settled call's window is set in whole milliseconds, rounded
        // up, as the local limiter's (a window must not end early).
        slots: this.store({ points: 1, duration: Math.ceil(longestCallMs / 1000), keyPrefix: `held${id}` }),
        windowMs: Math.ceil(limit.intervalMs),
      };
      this.budgets.set(`${id}:${longestCallMs}`, budget);
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

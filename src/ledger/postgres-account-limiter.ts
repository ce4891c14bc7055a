import { RateLimiterMemory, RateLimiterQueue } from 'rate-limiter-flexible';
import type { DataSource } from 'typeorm';
import type { AccountLimit, SharedAccountLimiter } from '../common/shared-account-limiter';

// One row per (budget, account): the time of the last turn given out. Ephemeral, like the budgets
// it counts (nothing is lost if it is dropped), so it is created on first use rather than by a
// migration, and by whichever worker gets there first.
const TABLE = 'account_call_turns';
const CREATE_TABLE_SQL = `CREATE TABLE IF NOT EXISTS ${TABLE} (
  account varchar(255) PRIMARY KEY,
  last_turn timestamptz NOT NULL
)`;
// Two workers creating it at once: one of them is told it exists (or that its type does).
const ALREADY_CREATED = new Set(['42P07', '23505']);

// The next turn of an account: `interval` after the last one given out, or now if that is past,
// taken in one statement (the row lock orders workers), with how long the caller waits for it,
// measured on PostgreSQL's clock alone.
const TAKE_TURN_SQL = `
  INSERT INTO ${TABLE} AS t (account, last_turn) VALUES ($1, clock_timestamp())
  ON CONFLICT (account) DO UPDATE
     SET last_turn = GREATEST(t.last_turn + make_interval(secs => $2), clock_timestamp())
  RETURNING GREATEST(0, EXTRACT(EPOCH FROM t.last_turn - clock_timestamp()) * 1000)::float8 AS wait_ms`;

// Remote accounts' budgets shared by every worker of a PostgreSQL ledger. The remotes count rolling
// windows, which fixed windows of `max` calls would overrun where two windows meet (max late in one,
// max early in the next); so the budget is paced: one call per interval/max, and no window of any
// start holds more than max. A caller takes the account's next turn on that schedule in one round
// trip and waits for it locally. (A limiter that refuses until the turn is free and is asked again,
// as rate-limiter-flexible's RateLimiterQueue over RateLimiterPostgres does, starts each turn when
// the retry reaches PostgreSQL: every call lost a timer and a round trip, more on a busy machine,
// and the account's calls went slower than its budget.) If PostgreSQL cannot answer, each worker
// counts alone, with rate-limiter-flexible in memory.
export class PostgresAccountLimiter implements SharedAccountLimiter {
  private table: Promise<void> | undefined;
  private readonly alone = new Map<string, RateLimiterQueue>();

  constructor(private readonly dataSource: DataSource) {}

  async acquire(account: string, limit: AccountLimit): Promise<void> {
    const spacingMs = limit.intervalMs / limit.max;
    let waitMs: number;
    try {
      await this.ensureTable();
      const rows = await this.dataSource.query<{ wait_ms: number }[]>(TAKE_TURN_SQL, [
        `${limit.max}/${limit.intervalMs}:${account}`,
        spacingMs / 1000,
      ]);
      waitMs = Number(rows[0]?.wait_ms ?? 0);
    } catch {
      await this.countAlone(limit, spacingMs).removeTokens(1, account);
      return;
    }
    if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs));
  }

  private ensureTable(): Promise<void> {
    this.table ??= this.dataSource.query(CREATE_TABLE_SQL).then(
      () => undefined,
      (error: { code?: string }) => {
        if (ALREADY_CREATED.has(error.code ?? '')) return;
        // Tried again on the next call.
        this.table = undefined;
        throw error;
      },
    );
    return this.table;
  }

  private countAlone(limit: AccountLimit, spacingMs: number): RateLimiterQueue {
    const id = `${limit.max}/${limit.intervalMs}`;
    let queue = this.alone.get(id);
    if (!queue) {
      queue = new RateLimiterQueue(new RateLimiterMemory({ points: 1, duration: spacingMs / 1000 }));
      this.alone.set(id, queue);
    }
    return queue;
  }
}

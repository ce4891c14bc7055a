import { DataSource, QueryRunner } from 'typeorm';
import { releaseLockConnection } from './advisory-lock';
import type { LedgerTransactions } from './ledger-transactions';
import { isPostgres } from './ledger-sql';
import type { RunOwners } from './run-owner';
import { SerialQueue } from './serial-queue';

// Names the turn locks in pg_locks (the first key of the two-key advisory lock): 'turn'.
const TURN_LOCK_CLASS = 0x7475726e;
const DEFAULT_POLL_MS = 50;
// The SQLite ledger's turn rows (migration 1764400000000-ledger-turns).
const TURNS_TABLE = 'ledger_turns';

// A lock on a key that other processes of the ledger respect: asked without blocking (taken or
// not), given back after the turn.
interface TurnLocks {
  take(key: string): Promise<boolean>;
  give(key: string): Promise<void>;
  // No turn of this process holds or wants a lock now.
  idle(): Promise<void>;
}

// Work that must never interleave with other work on the same key (say, every write of a
// brokerage's offer records), in this process and in every other process of the ledger: the
// workers sharing a PostgreSQL ledger, which run a brokerage's jobs side by side, and on SQLite the
// daemon and the operator's `cli sync` of another job of the same brokerage. In this process: one
// at a time per key, in order. Across processes: a session advisory lock on PostgreSQL, a row of
// `ledger_turns` naming its holder on SQLite (a holder that died is found gone and its row taken
// over, as its runs are: run-owner.ts). A lock is asked without blocking and asked again after
// `pollMs`, so one key's wait never holds up another key's turn. The work itself runs outside any
// transaction and uses the ledger as usual.
export class LedgerTurns {
  private readonly queues = new Map<string, SerialQueue>();
  private readonly locks: TurnLocks;
  private users = 0;
  private waitingCount = 0;
  private closed = false;

  constructor(
    dataSource: DataSource,
    transactions: LedgerTransactions,
    owners: RunOwners,
    private readonly pollMs = DEFAULT_POLL_MS,
  ) {
    this.locks = isPostgres(dataSource)
      ? new AdvisoryTurnLocks(dataSource)
      : new RowTurnLocks(transactions, owners);
  }

  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    let queue = this.queues.get(key);
    if (!queue) {
      queue = new SerialQueue();
      this.queues.set(key, queue);
    }
    const turn = queue;
    return turn
      .run(() => this.underLock(key, work))
      .finally(() => {
        if (turn.size === 0 && this.queues.get(key) === turn) this.queues.delete(key);
      });
  }

  // Turns of this process waiting for another process to end its turn on the same key.
  get waiting(): number {
    return this.waitingCount;
  }

  // Waits for the turns under way and refuses new waits; the ledger closes after.
  async drain(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.queues.values()].map((queue) => queue.drain()));
  }

  private async underLock<T>(key: string, work: () => Promise<T>): Promise<T> {
    this.users += 1;
    try {
      await this.acquire(key);
      try {
        return await work();
      } finally {
        await this.locks.give(key);
      }
    } finally {
      this.users -= 1;
      if (this.users === 0) await this.locks.idle();
    }
  }

  private async acquire(key: string): Promise<void> {
    let counted = false;
    try {
      for (;;) {
        if (await this.locks.take(key)) return;
        if (this.closed) throw new Error(`the ledger is closing; no turn on ${key}`);
        if (!counted) {
          counted = true;
          this.waitingCount += 1;
        }
        await new Promise((resolve) => setTimeout(resolve, this.pollMs));
      }
    } finally {
      if (counted) this.waitingCount -= 1;
    }
  }
}

// PostgreSQL: session advisory locks, on one connection of the pool taken while any turn of this
// process holds or wants one and given back when none does. A worker that dies frees its locks
// with its session.
class AdvisoryTurnLocks implements TurnLocks {
  private connection: Promise<QueryRunner> | undefined;
  // An unlock that failed may have left a lock on the connection: it is closed, not pooled again.
  private discard = false;

  constructor(private readonly dataSource: DataSource) {}

  async take(key: string): Promise<boolean> {
    const lock = await this.lockConnection();
    const [row] = (await lock.query('SELECT pg_try_advisory_lock($1, hashtext($2)) AS taken', [
      TURN_LOCK_CLASS,
      key,
    ])) as { taken: boolean }[];
    return row?.taken === true;
  }

  async give(key: string): Promise<void> {
    const lock = await this.lockConnection();
    await lock.query('SELECT pg_advisory_unlock($1, hashtext($2))', [TURN_LOCK_CLASS, key]).catch(() => {
      this.discard = true;
    });
  }

  async idle(): Promise<void> {
    const connection = this.connection;
    const discard = this.discard;
    this.connection = undefined;
    this.discard = false;
    const runner = await connection?.catch(() => undefined);
    if (!runner) return;
    await releaseLockConnection(runner, discard);
  }

  private lockConnection(): Promise<QueryRunner> {
    if (!this.connection) {
      const runner = this.dataSource.createQueryRunner();
      this.connection = runner.connect().then(
        () => runner,
        (error: unknown) => {
          this.connection = undefined;
          throw error;
        },
      );
    }
    return this.connection;
  }
}

// SQLite: a row per key held, naming its holder (`<host>/<pid>`), written in a write transaction so
// two processes never both take it. A row whose holder is gone (killed mid-turn) is taken over; one
// of this process is stale too (this process runs one turn per key at a time, and its row outlived
// a turn whose give failed).
class RowTurnLocks implements TurnLocks {
  constructor(
    private readonly transactions: LedgerTransactions,
    private readonly owners: RunOwners,
  ) {}

  take(key: string): Promise<boolean> {
    return this.transactions.run(async (m) => {
      const [row] = await m.query<{ owner: string }[]>(`SELECT owner FROM ${TURNS_TABLE} WHERE key = ?`, [
        key,
      ]);
      if (row && row.owner !== this.owners.self && this.owners.alive(row.owner)) return false;
      await m.query(`INSERT OR REPLACE INTO ${TURNS_TABLE} (key, owner, taken_at) VALUES (?, ?, ?)`, [
        key,
        this.owners.self,
        new Date().toISOString(),
      ]);
      return true;
    });
  }

  async give(key: string): Promise<void> {
    // A row left behind is taken over by the next turn of this process, or once this process is gone.
    await this.transactions
      .run((m) => m.query(`DELETE FROM ${TURNS_TABLE} WHERE key = ? AND owner = ?`, [key, this.owners.self]))
      .catch(() => undefined);
  }

  idle(): Promise<void> {
    return Promise.resolve();
  }
}

import { DataSource, QueryRunner } from 'typeorm';
import { isPostgres } from './ledger-sql';
import { SerialQueue } from './serial-queue';

// Names the turn locks in pg_locks (the first key of the two-key advisory lock): 'turn'.
const TURN_LOCK_CLASS = 0x7475726e;
const DEFAULT_POLL_MS = 50;

// Work that must never interleave with other work on the same key (say, every write of a
// brokerage's offer records), in this process and in every other worker of the ledger. In this
// process: one at a time per key, in order. On PostgreSQL, where several workers share the ledger
// and run different jobs of one brokerage at once, each turn also holds a session advisory lock on
// the key, so another worker's turn waits for it too.
//
// The locks live on one connection of the pool, taken while any turn of this process holds or wants
// one and given back when none does; it is asked with pg_try_advisory_lock (polled, never blocking
// the connection), so one key's wait never holds up another key's turn. A worker that dies frees its
// locks with its session. The work itself runs outside any transaction and uses the ledger as usual.
export class LedgerTurns {
  private readonly queues = new Map<string, SerialQueue>();
  private readonly shared: boolean;
  private connection: Promise<QueryRunner> | undefined;
  private users = 0;
  private waitingCount = 0;
  private closed = false;
  // An unlock that failed may have left a lock on the connection: it is closed, not pooled again.
  private discard = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly pollMs = DEFAULT_POLL_MS,
  ) {
    this.shared = isPostgres(dataSource);
  }

  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    let queue = this.queues.get(key);
    if (!queue) {
      queue = new SerialQueue();
      this.queues.set(key, queue);
    }
    const turn = queue;
    return turn
      .run(() => (this.shared ? this.underLock(key, work) : work()))
      .finally(() => {
        if (turn.size === 0 && this.queues.get(key) === turn) this.queues.delete(key);
      });
  }

  // Turns of this process waiting for another worker to end its turn on the same key.
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
      const lock = await this.lockConnection();
      await this.acquire(lock, key);
      try {
        return await work();
      } finally {
        await lock.query('SELECT pg_advisory_unlock($1, hashtext($2))', [TURN_LOCK_CLASS, key]).catch(() => {
          this.discard = true;
        });
      }
    } finally {
      this.users -= 1;
      if (this.users === 0) await this.releaseConnection();
    }
  }

  private async acquire(lock: QueryRunner, key: string): Promise<void> {
    let counted = false;
    try {
      for (;;) {
        const [row] = (await lock.query('SELECT pg_try_advisory_lock($1, hashtext($2)) AS taken', [
          TURN_LOCK_CLASS,
          key,
        ])) as { taken: boolean }[];
        if (row?.taken) return;
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

  private async releaseConnection(): Promise<void> {
    const connection = this.connection;
    const discard = this.discard;
    this.connection = undefined;
    this.discard = false;
    const runner = await connection?.catch(() => undefined);
    if (!runner) return;
    if (discard && hasDiscard(runner))
      await runner.releasePostgresConnection(new Error('advisory unlock failed')).catch(() => undefined);
    else await runner.release().catch(() => undefined);
  }
}

// TypeORM's PostgreSQL query runner: released with an error, its client is closed, not pooled.
function hasDiscard(
  runner: QueryRunner,
): runner is QueryRunner & { releasePostgresConnection(error: Error): Promise<void> } {
  return typeof (runner as { releasePostgresConnection?: unknown }).releasePostgresConnection === 'function';
}

import { AsyncLocalStorage } from 'node:async_hooks';
import { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { InFlightWork } from './in-flight-work';
import { isPostgres } from './ledger-sql';
import { SerialQueue } from './serial-queue';

// TypeORM keeps the transaction state of its (shared) SQLite query runner in these two fields. We
// begin the transaction ourselves with BEGIN IMMEDIATE (TypeORM only issues a deferred BEGIN, which
// can fail with SQLITE_BUSY on its first write regardless of busy_timeout), so we set them by hand:
// `save()` then does not open its own transaction and a nested `manager.transaction()` becomes a
// SAVEPOINT.
interface RunnerTransactionState {
  isTransactionActive: boolean;
  transactionDepth: number;
}

export class NestedLedgerWorkError extends Error {
  constructor() {
    super(
      'ledger work was started from inside another ledger transaction; use the EntityManager you were given instead',
    );
  }
}

// Every top-level unit of ledger work goes through here. On SQLite: one FIFO queue, so work never
// interleaves on the shared connection and nobody reads another caller's uncommitted rows. On
// PostgreSQL: each unit on its own pooled connection, counted so close() can wait for them. Callbacks receive only an
// EntityManager, so a network call inside a transaction has to be written on purpose.
export class LedgerTransactions {
  private readonly queue = new SerialQueue();
  private readonly inFlight = new InFlightWork();
  private readonly inside = new AsyncLocalStorage<true>();
  // PostgreSQL hands each unit of work its own pooled connection, so units run side by side.
  private readonly concurrent: boolean;

  constructor(readonly dataSource: DataSource) {
    this.concurrent = isPostgres(dataSource);
  }

  // A write transaction: BEGIN IMMEDIATE, the work, COMMIT (or ROLLBACK when the work throws).
  run<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    if (this.concurrent) return this.enqueue((runner) => this.runOnPool(runner, work));
    return this.enqueue(async (runner) => {
      const state = runner as unknown as RunnerTransactionState;
      // Fail loudly if a TypeORM upgrade renames the fields we rely on.
      if (typeof state.transactionDepth !== 'number') {
        throw new Error('TypeORM query runner has no transactionDepth; LedgerTransactions needs updating');
      }
      await runner.query(this.beginStatement());
      state.isTransactionActive = true;
      state.transactionDepth = 1;
      try {
        const result = await work(runner.manager);
        await runner.query('COMMIT');
        return result;
      } catch (error) {
        await runner.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        state.isTransactionActive = false;
        state.transactionDepth = 0;
      }
    });
  }

  // A single statement in autocommit (durable on return) or a read, in turn with the transactions.
  exclusive<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.enqueue((runner) => work(runner.manager));
  }

  // Queued and running units of work, for metrics.
  get backlog(): number {
    return this.queue.size + this.inFlight.size;
  }

  async drain(): Promise<void> {
    await this.queue.drain();
    await this.inFlight.drain();
  }

  private enqueue<T>(work: (runner: QueryRunner) => Promise<T>): Promise<T> {
    // Waiting for the queue from inside the queue would wait forever (and on PostgreSQL a second
    // connection would not see the first one's uncommitted rows).
    if (this.inside.getStore()) return Promise.reject(new NestedLedgerWorkError());
    const task = () =>
      this.inside.run(true, async () => {
        // On SQLite this is the one shared runner (release is a no-op); on PostgreSQL a pooled one.
        const runner = this.dataSource.createQueryRunner();
        try {
          return await work(runner);
        } finally {
          await runner.release();
        }
      });
    return this.concurrent ? this.inFlight.run(task) : this.queue.run(task);
  }

  // PostgreSQL: a connection of its own per transaction, so no queue; TypeORM's own transaction
  // calls (READ COMMITTED), with row locks and unique constraints guarding concurrent workers.
  private async runOnPool<T>(runner: QueryRunner, work: (manager: EntityManager) => Promise<T>): Promise<T> {
    await runner.startTransaction();
    try {
      const result = await work(runner.manager);
      await runner.commitTransaction();
      return result;
    } catch (error) {
      if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
      throw error;
    }
  }

  private beginStatement(): string {
    return 'BEGIN IMMEDIATE';
  }
}

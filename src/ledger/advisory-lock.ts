import type { DataSource, QueryRunner } from 'typeorm';

// Runs `work` while this process holds a PostgreSQL session advisory lock, on a connection of its
// own (taken from the pool and given back after): workers doing the same one-time work at start
// (migrations, queue and schedule setup) take turns. A worker that dies frees the lock with its
// session.
export async function withSessionAdvisoryLock<T>(
  dataSource: DataSource,
  lockId: number,
  work: () => Promise<T>,
): Promise<T> {
  const lock = dataSource.createQueryRunner();
  let unlockFailed = false;
  try {
    await lock.query('SELECT pg_advisory_lock($1)', [lockId]);
    return await work();
  } finally {
    await lock.query('SELECT pg_advisory_unlock($1)', [lockId]).catch(() => (unlockFailed = true));
    await releaseLockConnection(lock, unlockFailed);
  }
}

// Gives a connection that held session advisory locks back to the pool; after a failed unlock it
// may still hold one, so it is closed instead: pooled again, it would keep the lock for whoever
// takes it next, and every other worker would wait on it for ever.
export async function releaseLockConnection(runner: QueryRunner, unlockFailed: boolean): Promise<void> {
  if (unlockFailed && hasDiscard(runner))
    await runner.releasePostgresConnection(new Error('advisory unlock failed')).catch(() => undefined);
  else await runner.release().catch(() => undefined);
}

// TypeORM's PostgreSQL query runner: released with an error, its client is closed, not pooled.
function hasDiscard(
  runner: QueryRunner,
): runner is QueryRunner & { releasePostgresConnection(error: Error): Promise<void> } {
  return typeof (runner as { releasePostgresConnection?: unknown }).releasePostgresConnection === 'function';
}

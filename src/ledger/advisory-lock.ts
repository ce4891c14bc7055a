import type { DataSource } from 'typeorm';

// Runs `work` while this process holds a PostgreSQL session advisory lock, on a connection of its
// own (taken from the pool and given back after): workers doing the same one-time work at start
// (migrations, queue and schedule setup) take turns. A worker that dies frees the lock with its
// session; a failed unlock is let go with the connection.
export async function withSessionAdvisoryLock<T>(
  dataSource: DataSource,
  lockId: number,
  work: () => Promise<T>,
): Promise<T> {
  const lock = dataSource.createQueryRunner();
  try {
    await lock.query('SELECT pg_advisory_lock($1)', [lockId]);
    return await work();
  } finally {
    await lock.query('SELECT pg_advisory_unlock($1)', [lockId]).catch(() => undefined);
    await lock.release();
  }
}

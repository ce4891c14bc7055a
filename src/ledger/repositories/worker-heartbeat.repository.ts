import type { PostgresConnectionOptions } from 'typeorm/driver/postgres/PostgresConnectionOptions';
import { isPostgres } from '../ledger-sql';
import { LedgerTransactions } from '../ledger-transactions';
import { LivenessSession } from '../liveness-session';
import { HEARTBEAT_ROWS_KEPT_SECONDS } from '../worker-liveness';

// The database's clock, as a UTC `timestamp` like every ledger column: the workers' own clocks
// never decide who is dead. (`now()` is a timestamptz; a bare cast would use the session's zone.)
const PG_NOW = "(now() AT TIME ZONE 'UTC')";
// SQLite's, in the text form TypeORM writes Dates in.
const SQLITE_NOW = "strftime('%Y-%m-%d %H:%M:%f', 'now')";

// The heartbeats of the workers sharing a PostgreSQL ledger (WorkerHeartbeat). Written by each
// worker for itself; read by the takeover query (PgBossTables.abandonedJobs), which joins them.
// On PostgreSQL the beats go over this process's LivenessSession, opened at the first beat, and
// record its backend pid: the takeover query finds a dead worker's session gone.
export class WorkerHeartbeatRepository {
  private readonly postgres: boolean;
  private session: LivenessSession | undefined;

  constructor(private readonly tx: LedgerTransactions) {
    this.postgres = isPostgres(tx.dataSource);
  }

  // `owner` is alive now; rows of workers silent for long are dropped on the way.
  async beat(owner: string): Promise<void> {
    if (this.postgres) {
      this.session ??= new LivenessSession(postgresUrl(this.tx));
      await this.session.query(
        `WITH beat AS (
           INSERT INTO worker_heartbeats (owner, beat_at, session_pid) VALUES ($1, ${PG_NOW}, pg_backend_pid())
           ON CONFLICT (owner) DO UPDATE SET beat_at = EXCLUDED.beat_at, session_pid = EXCLUDED.session_pid)
         DELETE FROM worker_heartbeats WHERE owner <> $1 AND beat_at < ${PG_NOW} - make_interval(secs => $2)`,
        [owner, HEARTBEAT_ROWS_KEPT_SECONDS],
      );
      return;
    }
    await this.tx.run(async (m) => {
      await m.query(
        `INSERT INTO worker_heartbeats (owner, beat_at) VALUES (?, ${SQLITE_NOW})
         ON CONFLICT (owner) DO UPDATE SET beat_at = excluded.beat_at`,
        [owner],
      );
      await m.query(`DELETE FROM worker_heartbeats WHERE beat_at < strftime('%Y-%m-%d %H:%M:%f', 'now', ?)`, [
        `-${HEARTBEAT_ROWS_KEPT_SECONDS} seconds`,
      ]);
    });
  }

  // The liveness session, if this process opened one (at the ledger's close).
  async close(): Promise<void> {
    await this.session?.close();
    this.session = undefined;
  }

  // A clean stop: the worker is gone at once, not after its silence.
  async end(owner: string): Promise<void> {
    await this.tx.run((m) =>
      m.query(`DELETE FROM worker_heartbeats WHERE owner = ${this.postgres ? '$1' : '?'}`, [owner]),
    );
  }

  // Owners with a beat, and how many seconds ago it was (on the database's clock).
  async silences(): Promise<{ owner: string; seconds: number }[]> {
    const rows = await this.tx.exclusive((m) =>
      m.query<{ owner: string; seconds: string | number }[]>(
        this.postgres
          ? `SELECT owner, EXTRACT(EPOCH FROM ${PG_NOW} - beat_at) AS seconds FROM worker_heartbeats ORDER BY owner`
          : `SELECT owner, (julianday('now') - julianday(beat_at)) * 86400 AS seconds FROM worker_heartbeats ORDER BY owner`,
      ),
    );
    return rows.map((r) => ({ owner: r.owner, seconds: Number(r.seconds) }));
  }
}

function postgresUrl(tx: LedgerTransactions): string {
  const url = (tx.dataSource.options as PostgresConnectionOptions).url;
  if (!url) throw new Error('the PostgreSQL ledger has no url to open a liveness session with');
  return url;
}

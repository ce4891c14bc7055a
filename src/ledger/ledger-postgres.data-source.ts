import { defaults, types } from 'pg';
import { DataSource } from 'typeorm';
import { LEDGER_ENTITIES } from './entities';
import { LEDGER_MIGRATIONS } from './migrations';
import { withSessionAdvisoryLock } from './advisory-lock';

// Connections per process: a worker runs a few jobs at once plus webhook intake; more only queue
// behind PostgreSQL's own locks. pg-boss keeps its own small pool beside this one.
export const LEDGER_POOL_SIZE = 10;

export function isPostgresUrl(url: string | undefined): url is string {
  return url !== undefined && /^postgres(ql)?:\/\//.test(url);
}

// The same entities and migrations as on SQLite. Migrations are not run by initialize() here, because
// several workers may start at once and TypeORM does not lock: see runPostgresMigrations.
export function createPostgresLedgerDataSource(options: { url: string; logging?: boolean }): DataSource {
  if (!isPostgresUrl(options.url)) throw new Error('LEDGER_URL must start with postgres:// or postgresql://');
  useUtcTimestamps();
  return new DataSource({
    type: 'postgres',
    url: options.url,
    entities: LEDGER_ENTITIES,
    migrations: LEDGER_MIGRATIONS,
    migrationsRun: false,
    migrationsTransactionMode: 'all',
    synchronize: false,
    logging: options.logging ?? false,
    poolSize: LEDGER_POOL_SIZE,
    applicationName: 'cash-offer-sync',
    // A stuck statement must not hold row locks forever.
    extra: {
      statement_timeout: 30_000,
      idle_in_transaction_session_timeout: 60_000,
      types: { getTypeParser: utcTimestampParser },
    },
  });
}

// Any fixed number shared by every worker of this ledger; names the migration lock in pg_locks.
const MIGRATION_LOCK_ID = 0x6c656467; // 'ledg'

// Applies pending migrations while holding a session advisory lock, so workers starting together
// take turns: the first migrates, the others then find nothing pending.
export async function runPostgresMigrations(dataSource: DataSource): Promise<void> {
  await withSessionAdvisoryLock(dataSource, MIGRATION_LOCK_ID, () =>
    dataSource.runMigrations({ transaction: 'all' }),
  );
}

const TIMESTAMP_WITHOUT_TIME_ZONE = 1114;

// The portable `Date` columns are `timestamp without time zone` on PostgreSQL (entities and the
// committed migration say so), and node-postgres writes and reads those in the process's local time
// zone: two workers in different zones would disagree on when a command is due. So the ledger stores
// UTC: Dates are sent as UTC (a node-postgres default, process-wide; harmless to pg-boss, whose
// columns are timestamptz and get the offset) and read back as UTC (this pool's parser only).
function useUtcTimestamps(): void {
  defaults.parseInputDatesAsUTC = true;
}

function utcTimestampParser(oid: number, format?: 'text' | 'binary'): (value: string) => unknown {
  if (oid === TIMESTAMP_WITHOUT_TIME_ZONE && format !== 'binary') {
    return (value: string) => new Date(`${value.replace(' ', 'T')}Z`);
  }
  return types.getTypeParser(oid, 'text') as (value: string) => unknown;
}

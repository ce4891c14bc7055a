import type { Database } from 'better-sqlite3';
import { DataSource } from 'typeorm';
import { LEDGER_ENTITIES } from './entities';
import { LEDGER_MIGRATIONS } from './migrations';
import { createPostgresLedgerDataSource } from './ledger-postgres.data-source';

export const DEFAULT_LEDGER_PATH = 'data/ledger.sqlite';
export const LEDGER_BUSY_TIMEOUT_MS = 5000;
// SQLite's own default page cache (2 MiB). better-sqlite3 raises it to 16 MiB, which the process's
// memory then grows into as the ledger grows; the B-tree's inner pages fit in 2 MiB and the
// operating system's file cache serves the rest just as fast (bench:marketplace, docs/ledger.md).
export const LEDGER_CACHE_KIB = 2000;

export interface LedgerDataSourceOptions {
  databasePath: string;
  // `postgres://…` (LEDGER_URL): the ledger lives in PostgreSQL instead of the SQLite file.
  url?: string;
  logging?: boolean;
}

// Set on the connection before TypeORM uses it. WAL lets readers run beside the writer; FULL syncs the
// WAL on every commit, because these commits gate external effects (a create sent after a commit that
// a power cut could undo would be sent twice).
export function applyLedgerPragmas(db: Database): void {
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma(`busy_timeout = ${LEDGER_BUSY_TIMEOUT_MS}`);
  db.pragma('foreign_keys = ON');
  db.pragma(`cache_size = -${LEDGER_CACHE_KIB}`);
}

export function createLedgerDataSource(options: LedgerDataSourceOptions): DataSource {
  if (options.url) return createPostgresLedgerDataSource({ url: options.url, logging: options.logging });
  return new DataSource({
    type: 'better-sqlite3',
    database: options.databasePath,
    entities: LEDGER_ENTITIES,
    migrations: LEDGER_MIGRATIONS,
    migrationsRun: true,
    migrationsTransactionMode: 'all',
    synchronize: false,
    logging: options.logging ?? false,
    timeout: LEDGER_BUSY_TIMEOUT_MS,
    statementCacheSize: 200,
    prepareDatabase: (db: Database) => applyLedgerPragmas(db),
  });
}

import { DataSource } from 'typeorm';
import { Clock, SystemClock } from '../common/clock';
import { createLedgerDataSource, DEFAULT_LEDGER_PATH } from './ledger.data-source';
import { runPostgresMigrations } from './ledger-postgres.data-source';
import { isPostgres } from './ledger-sql';
import { LedgerRetention } from './ledger.retention';
import { LedgerTransactions } from './ledger-transactions';
import { LedgerTurns } from './ledger-turns';
import { ensurePrivateLedgerFiles } from './private-files';
import { CursorRepository } from './repositories/cursor.repository';
import { InboxRepository } from './repositories/inbox.repository';
import { LinkRepository } from './repositories/link.repository';
import { OutboxRepository } from './repositories/outbox.repository';
import { PauseRepository } from './repositories/pause.repository';
import { RecordErrorRepository } from './repositories/record-error.repository';
import { RunRepository } from './repositories/run.repository';

export interface OpenLedgerOptions {
  databasePath: string;
  // `postgres://…`: the shared PostgreSQL ledger of several workers; the SQLite file when absent.
  url?: string;
  clock?: Clock;
  logging?: boolean;
}

// The daemon's memory of what it did: one SQLite file, every repository over one serialised connection,
// or one PostgreSQL database shared by several workers (LEDGER_URL).
export class Ledger {
  readonly transactions: LedgerTransactions;
  readonly turns: LedgerTurns;
  readonly links: LinkRepository;
  readonly cursors: CursorRepository;
  readonly inbox: InboxRepository;
  readonly outbox: OutboxRepository;
  readonly runs: RunRepository;
  readonly recordErrors: RecordErrorRepository;
  readonly retention: LedgerRetention;
  readonly pauses: PauseRepository;

  constructor(
    readonly dataSource: DataSource,
    readonly clock: Clock,
  ) {
    this.transactions = new LedgerTransactions(dataSource);
    this.turns = new LedgerTurns(dataSource);
    this.links = new LinkRepository(this.transactions, clock);
    this.cursors = new CursorRepository(this.transactions, clock);
    this.inbox = new InboxRepository(this.transactions, clock);
    this.outbox = new OutboxRepository(this.transactions, clock);
    this.runs = new RunRepository(this.transactions, clock);
    this.recordErrors = new RecordErrorRepository(this.transactions, clock);
    this.retention = new LedgerRetention(this.transactions, clock);
    this.pauses = new PauseRepository(this.transactions, clock);
  }

  // What a crash left half-done, put right at start: returns what was recovered.
  async recoverInterrupted(): Promise<{ inbox: number; outbox: number; runs: number }> {
    return {
      inbox: await this.inbox.recoverInterrupted(),
      outbox: await this.outbox.recoverInterrupted(),
      runs: await this.runs.recoverInterrupted(),
    };
  }

  // Waits for queued work and turns under way, then closes the connection.
  async close(): Promise<void> {
    if (!this.dataSource.isInitialized) return;
    await this.turns.drain();
    await this.transactions.drain();
    await this.dataSource.destroy();
  }
}

// Opens (creating it if needed) the ledger file and applies pending migrations.
export async function openLedger(options: OpenLedgerOptions): Promise<Ledger> {
  const url = options.url || undefined;
  const databasePath = options.databasePath || DEFAULT_LEDGER_PATH;
  // Before SQLite creates it: its -wal and -shm then inherit the 0600.
  if (!url) ensurePrivateLedgerFiles(databasePath);
  const dataSource = createLedgerDataSource({ databasePath, url, logging: options.logging });
  await dataSource.initialize();
  if (isPostgres(dataSource)) await runPostgresMigrations(dataSource);
  return new Ledger(dataSource, options.clock ?? new SystemClock());
}

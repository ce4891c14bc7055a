import { DataSource, In } from 'typeorm';
import { Clock, SystemClock } from '../common/clock';
import { Run } from './entities';
import { interruptRuns, processingToPending, sendingToUnknown, type Recovered } from './interrupted-work';
import { createLedgerDataSource, DEFAULT_LEDGER_PATH } from './ledger.data-source';
import { runPostgresMigrations } from './ledger-postgres.data-source';
import { isPostgres } from './ledger-sql';
import { LedgerRetention } from './ledger.retention';
import { LedgerTransactions } from './ledger-transactions';
import { LedgerTurns } from './ledger-turns';
import { ensurePrivateLedgerFiles } from './private-files';
import { CrmWebhookEventRepository } from './repositories/crm-webhook-event.repository';
import { CursorRepository } from './repositories/cursor.repository';
import { InboxRepository } from './repositories/inbox.repository';
import { LinkRepository } from './repositories/link.repository';
import { OutboxRepository } from './repositories/outbox.repository';
import { AlertRepository } from './repositories/alert.repository';
import { HistoryRepository } from './repositories/history.repository';
import { PauseRepository } from './repositories/pause.repository';
import { RecordErrorRepository } from './repositories/record-error.repository';
import { RunRepository } from './repositories/run.repository';
import { WorkerHeartbeatRepository } from './repositories/worker-heartbeat.repository';
import { SystemRunOwners, workerOwner, type RunOwners } from './run-owner';

export interface OpenLedgerOptions {
  databasePath: string;
  // `postgres://…`: the shared PostgreSQL ledger of several workers; the SQLite file when absent.
  url?: string;
  clock?: Clock;
  logging?: boolean;
  // Who this process is and whether another holder is alive (tests stand in for the OS).
  owners?: RunOwners;
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
  readonly alerts: AlertRepository;
  readonly crmWebhookEvents: CrmWebhookEventRepository;
  readonly history: HistoryRepository;
  readonly heartbeats: WorkerHeartbeatRepository;

  constructor(
    readonly dataSource: DataSource,
    readonly clock: Clock,
    readonly owners: RunOwners = new SystemRunOwners(),
  ) {
    this.transactions = new LedgerTransactions(dataSource);
    this.turns = new LedgerTurns(dataSource, this.transactions, owners);
    this.history = new HistoryRepository(this.transactions, clock);
    this.links = new LinkRepository(this.transactions, clock, this.history);
    this.cursors = new CursorRepository(this.transactions, clock);
    this.inbox = new InboxRepository(this.transactions, clock);
    this.outbox = new OutboxRepository(this.transactions, clock, this.history);
    this.runs = new RunRepository(this.transactions, clock, owners);
    this.recordErrors = new RecordErrorRepository(this.transactions, clock);
    this.retention = new LedgerRetention(this.transactions, clock, this.history);
    this.pauses = new PauseRepository(this.transactions, clock);
    this.alerts = new AlertRepository(this.transactions, clock);
    this.crmWebhookEvents = new CrmWebhookEventRepository(this.transactions, clock);
    this.heartbeats = new WorkerHeartbeatRepository(this.transactions);
  }

  // What a crash left half-done, put right at start: returns what was recovered.
  // Everything but what another live process is working on: the operator's `cli sync` may be running
  // a job beside the daemon that starts, and its run, the commands it is sending and the events it is
  // processing are its own (RunRepository.claim). One transaction, so such a run either started
  // before (and is left alone) or claims nothing until the recovery is committed.
  async recoverInterrupted(): Promise<Recovered> {
    return this.transactions.run(async (m) => {
      const now = this.clock.now();
      const running = await m.find(Run, { where: { status: 'running' } });
      const live = running.filter(
        (r) => r.owner !== null && r.owner !== this.owners.self && this.owners.alive(r.owner),
      );
      const held = new Set(live.map((r) => `${r.brokerageId}\u0000${r.job}`));
      const stale = running.filter((r) => !held.has(`${r.brokerageId}\u0000${r.job}`));
      const busy = (job: string): string[] => live.filter((r) => r.job === job).map((r) => r.brokerageId);
      return {
        // A dead holder's run of a pair a live process now holds is left running: whoever claims the
        // pair next finds it and recovers the pair's claims with it.
        runs: stale.length > 0 ? await interruptRuns(m, now, { id: In(stale.map((r) => r.id)) }) : 0,
        outbox: await sendingToUnknown(m, now, { exceptBrokerages: busy('outbox-drain') }),
        inbox: await processingToPending(m, { exceptBrokerages: busy('inbox-drain') }),
      };
    });
  }

  // Waits for queued work and turns under way, then closes the connection.
  async close(): Promise<void> {
    if (!this.dataSource.isInitialized) return;
    await this.turns.drain();
    await this.transactions.drain();
    await this.heartbeats.close();
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
  // A shared ledger's processes are told apart by start too (run-owner.ts).
  const owners = options.owners ?? (isPostgres(dataSource) ? new SystemRunOwners(workerOwner()) : undefined);
  return new Ledger(dataSource, options.clock ?? new SystemClock(), owners);
}

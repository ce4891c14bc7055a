import Database from 'better-sqlite3';
import { Client } from 'pg';

// What an operator may read from the daemon's ledger: opened read-only, never written.
export interface OutboxRow {
  id: number;
  operation: string;
  record_ref: string;
  state: string;
  attempts: number;
  last_error: string | null;
}

export interface RecordErrorRow {
  record_kind: string;
  record_ref: string;
  field: string;
  message: string;
}

export interface LedgerView {
  outbox: OutboxRow[];
  inbox: { id: number; status: string }[];
  openErrors: RecordErrorRow[];
}

// The ledger as the soak reads it, whichever database holds it.
export interface LedgerReader {
  read(): Promise<LedgerView>;
}

const OUTBOX_SQL =
  'SELECT id, operation, record_ref, state, attempts, last_error FROM outbox_commands ORDER BY id';
const INBOX_SQL = 'SELECT id, status FROM inbox_events ORDER BY id';
const ERRORS_SQL =
  'SELECT record_kind, record_ref, field, message FROM record_errors WHERE resolved_at IS NULL ORDER BY id';

export function sqliteLedger(path: string): LedgerReader {
  return { read: () => Promise.resolve(readLedger(path)) };
}

// The workers' shared PostgreSQL ledger; a connection per read (a few a second while settling).
export function postgresLedger(url: string): LedgerReader {
  return {
    read: async () => {
      const client = new Client({ connectionString: url });
      await client.connect();
      try {
        const [outbox, inbox, openErrors] = [
          (await client.query<OutboxRow>(OUTBOX_SQL)).rows,
          (await client.query<{ id: number; status: string }>(INBOX_SQL)).rows,
          (await client.query<RecordErrorRow>(ERRORS_SQL)).rows,
        ];
        // bigint ids come back as text from pg
        return {
          outbox: outbox.map((c) => ({ ...c, id: Number(c.id) })),
          inbox: inbox.map((e) => ({ ...e, id: Number(e.id) })),
          openErrors,
        };
      } finally {
        await client.end();
      }
    },
  };
}

export function readLedger(path: string): LedgerView {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return {
      outbox: db.prepare(OUTBOX_SQL).all() as OutboxRow[],
      inbox: db.prepare(INBOX_SQL).all() as { id: number; status: string }[],
      openErrors: db.prepare(ERRORS_SQL).all() as RecordErrorRow[],
    };
  } finally {
    db.close();
  }
}

// Whether the process `pid` holds a run in the ledger right now (runs.owner is `<host>/<pid>`).
export function holdsRun(path: string, pid: number): boolean {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return (
      db.prepare("SELECT 1 FROM runs WHERE status = 'running' AND owner LIKE ?").get(`%/${pid}`) !== undefined
    );
  } finally {
    db.close();
  }
}

// Commands and events the daemon still has to work on by itself; `unknown` and `dead` wait for an operator.
// `unknown` is work in progress too: the daemon looks for it and resolves it by itself.
export const OUTBOX_BUSY = ['pending', 'sending', 'failed', 'unknown'];
export const INBOX_BUSY = ['pending', 'processing', 'failed'];

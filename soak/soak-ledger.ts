import Database from 'better-sqlite3';

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

export function readLedger(path: string): LedgerView {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return {
      outbox: db
        .prepare(
          'SELECT id, operation, record_ref, state, attempts, last_error FROM outbox_commands ORDER BY id',
        )
        .all() as OutboxRow[],
      inbox: db.prepare('SELECT id, status FROM inbox_events ORDER BY id').all() as {
        id: number;
        status: string;
      }[],
      openErrors: db
        .prepare(
          'SELECT record_kind, record_ref, field, message FROM record_errors WHERE resolved_at IS NULL ORDER BY id',
        )
        .all() as RecordErrorRow[],
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

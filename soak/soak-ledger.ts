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
  // The service's answer as the daemon kept it (JSON), or what its reconcile found.
  result: string | null;
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
  // Runs marked running: a live process's, or a dead one's until whoever takes its job over
  // interrupts it (a killed worker's, after its missed heartbeats).
  running: { id: number; brokerage_id: string; job: string }[];
}

// A complete pass of a job (a succeeded run, the daemon's or an operator's). Of `offers-reconcile`:
// the offer clocks ran at its end (soak-task-checks.ts owes a task only where one ran); of
// `marketplace`: every page was read and what was not listed closed (soak/buyer-soak.ts). Epoch ms.
export interface ReconcilePass {
  startedMs: number;
  finishedMs: number;
}

// A clock's `create_offer_task` command as the task check reads it (epoch ms; null when not yet).
export interface TaskCreateRow {
  key: string; // the task key (`offer:7012:lead:12m`)
  state: string;
  queuedMs: number;
  sentMs: number | null; // the last send's start
  doneMs: number | null;
  skipped: string | null; // the executor's reason when it made no task (`{ skipped }` result)
}

// A counter the daemon gave up before sending it (its own expiry passed while it waited; the
// command dead with `{ notSent: true }`): when, since the agent's record went back to the offer as
// it is then (docs/crm-mapping.md).
export interface CounterGivenUp {
  offerId: string;
  givenUpMs: number;
}

// A counter the decision consumer refused at the agent's move because its expiry had already
// passed (the record stays in Counter requested with Decision error set): the open ledger error on
// the record, first and last seen (a later refusal of the same record only moves `lastMs`).
export interface CounterRefusedAtMove {
  recordId: string;
  firstMs: number;
  lastMs: number;
}

// The ledger as the soak reads it, whichever database holds it.
export interface LedgerReader {
  read(): Promise<LedgerView>;
  passes(job: 'offers-reconcile' | 'marketplace'): Promise<ReconcilePass[]>;
  taskCreates(): Promise<TaskCreateRow[]>;
  countersGivenUp(): Promise<CounterGivenUp[]>;
  countersRefusedAtMove(): Promise<CounterRefusedAtMove[]>;
  // How many of the daemon's counter links keep a read of their offer listed `countered` while the
  // counter waited (`"l":"countered"`): whether the daemon ever learnt how this service lists one.
  countersSeenWaiting(): Promise<number>;
  // The outbox, the runs, the inbox and the links, whole, as JSON lines: written to the work dir,
  // since a PostgreSQL ledger is dropped with its database at the end of the run (a finding on
  // three workers is then read from this file: sweep 1440 run 1's stale best offer had no links).
  dump(): Promise<string>;
}

const OUTBOX_SQL =
  'SELECT id, operation, record_ref, state, attempts, last_error, result FROM outbox_commands ORDER BY id';
const INBOX_SQL = 'SELECT id, status FROM inbox_events ORDER BY id';
const RUNNING_SQL = "SELECT id, brokerage_id, job FROM runs WHERE status = 'running' ORDER BY id";
// Times as text: the ledger keeps UTC without a zone (SQLite text, PostgreSQL `timestamp`).
const PASSES_SQL = (text: (column: string) => string, job: string): string => {
  if (!/^[a-z-]+$/.test(job)) throw new Error(`not a job name: ${job}`);
  return (
    `SELECT ${text('started_at')} AS started, ${text('finished_at')} AS finished FROM runs ` +
    `WHERE job = '${job}' AND status = 'succeeded' AND finished_at IS NOT NULL ORDER BY id`
  );
};
const utcMs = (text: string): number => Date.parse(`${text.replace(' ', 'T')}Z`);
const toPasses = (rows: { started: string; finished: string }[]): ReconcilePass[] =>
  rows.map((r) => ({ startedMs: utcMs(r.started), finishedMs: utcMs(r.finished) }));
const TASK_CREATES_SQL = (text: (column: string) => string): string =>
  `SELECT payload, state, result, ${text('created_at')} AS queued, ${text('sent_at')} AS sent, ` +
  `${text('completed_at')} AS done FROM outbox_commands WHERE operation = 'create_offer_task' ORDER BY id`;
interface TaskCreateSqlRow {
  payload: string;
  state: string;
  result: string | null;
  queued: string;
  sent: string | null;
  done: string | null;
}
const toTaskCreates = (rows: TaskCreateSqlRow[]): TaskCreateRow[] =>
  rows.map((r) => {
    const payload = JSON.parse(r.payload) as { key: string };
    const result = r.result ? (JSON.parse(r.result) as { skipped?: unknown } | null) : null;
    return {
      key: payload.key,
      state: r.state,
      queuedMs: utcMs(r.queued),
      sentMs: r.sent ? utcMs(r.sent) : null,
      doneMs: r.done ? utcMs(r.done) : null,
      skipped: typeof result?.skipped === 'string' ? result.skipped : null,
    };
  });
const COUNTERS_GIVEN_UP_SQL = (text: (column: string) => string): string =>
  `SELECT payload, result, ${text('updated_at')} AS at FROM outbox_commands ` +
  `WHERE operation = 'counter_offer' AND state = 'dead' ORDER BY id`;
interface GivenUpSqlRow {
  payload: string;
  result: string | null;
  at: string;
}
const toCountersGivenUp = (rows: GivenUpSqlRow[]): CounterGivenUp[] =>
  rows.flatMap((r) => {
    const result = r.result ? (JSON.parse(r.result) as { notSent?: unknown } | null) : null;
    if (result?.notSent !== true) return [];
    const payload = JSON.parse(r.payload) as { offerId?: unknown };
    return [{ offerId: String(payload.offerId), givenUpMs: utcMs(r.at) }];
  });
const REFUSED_AT_MOVE_SQL = (text: (column: string) => string): string =>
  `SELECT record_ref, ${text('first_seen_at')} AS first, ${text('last_seen_at')} AS last FROM record_errors ` +
  `WHERE record_kind = 'deal' AND field = 'counter_offer_expires' ORDER BY id`;
interface RefusedSqlRow {
  record_ref: string;
  first: string;
  last: string;
}
const toRefusedAtMove = (rows: RefusedSqlRow[]): CounterRefusedAtMove[] =>
  rows.map((r) => ({ recordId: r.record_ref, firstMs: utcMs(r.first), lastMs: utcMs(r.last) }));
const COUNTERS_SEEN_WAITING_SQL = `SELECT count(*) AS n FROM links WHERE kind = 'counter_offer' AND content_hash LIKE '%"l":"countered"%'`;
const DUMP_TABLES = ['outbox_commands', 'runs', 'inbox_events', 'links'];
const ERRORS_SQL =
  'SELECT record_kind, record_ref, field, message FROM record_errors WHERE resolved_at IS NULL ORDER BY id';

export function sqliteLedger(path: string): LedgerReader {
  // One read-only connection per read: the daemon keeps writing the file between reads.
  const withDb = <T>(read: (db: Database.Database) => T): Promise<T> => {
    const db = new Database(path, { readonly: true, fileMustExist: true });
    try {
      return Promise.resolve(read(db));
    } finally {
      db.close();
    }
  };
  const rows = <R>(db: Database.Database, sql: string) => db.prepare(sql).all() as R[];
  const asIs = (column: string) => column;
  return {
    read: () => Promise.resolve(readLedger(path)),
    passes: (job) =>
      withDb((db) => toPasses(rows<{ started: string; finished: string }>(db, PASSES_SQL(asIs, job)))),
    taskCreates: () => withDb((db) => toTaskCreates(rows<TaskCreateSqlRow>(db, TASK_CREATES_SQL(asIs)))),
    countersGivenUp: () =>
      withDb((db) => toCountersGivenUp(rows<GivenUpSqlRow>(db, COUNTERS_GIVEN_UP_SQL(asIs)))),
    countersRefusedAtMove: () =>
      withDb((db) => toRefusedAtMove(rows<RefusedSqlRow>(db, REFUSED_AT_MOVE_SQL(asIs)))),
    countersSeenWaiting: () =>
      withDb((db) => Number(rows<{ n: number }>(db, COUNTERS_SEEN_WAITING_SQL)[0].n)),
    dump: () =>
      withDb((db) =>
        DUMP_TABLES.flatMap((table) =>
          rows<object>(db, `SELECT * FROM ${table} ORDER BY id`).map((row) =>
            JSON.stringify({ table, ...row }),
          ),
        ).join('\n'),
      ),
  };
}

// The workers' shared PostgreSQL ledger; a connection per read (a few a second while settling).
export function postgresLedger(url: string): LedgerReader {
  const withClient = async <T>(read: (client: Client) => Promise<T>): Promise<T> => {
    const client = new Client({ connectionString: url });
    await client.connect();
    try {
      return await read(client);
    } finally {
      await client.end();
    }
  };
  // Timestamps as SQLite's text, so one parser reads both.
  const asText = (column: string) => `to_char(${column}, 'YYYY-MM-DD HH24:MI:SS.MS')`;
  return {
    read: () =>
      withClient(async (client) => {
        const [outbox, inbox, openErrors, running] = [
          (await client.query<OutboxRow>(OUTBOX_SQL)).rows,
          (await client.query<{ id: number; status: string }>(INBOX_SQL)).rows,
          (await client.query<RecordErrorRow>(ERRORS_SQL)).rows,
          (await client.query<LedgerView['running'][number]>(RUNNING_SQL)).rows,
        ];
        // bigint ids come back as text from pg
        return {
          outbox: outbox.map((c) => ({ ...c, id: Number(c.id) })),
          inbox: inbox.map((e) => ({ ...e, id: Number(e.id) })),
          openErrors,
          running: running.map((r) => ({ ...r, id: Number(r.id) })),
        };
      }),
    passes: (job) =>
      withClient(async (client) =>
        toPasses((await client.query<{ started: string; finished: string }>(PASSES_SQL(asText, job))).rows),
      ),
    // payload and result are text (simple-json), as in SQLite
    taskCreates: () =>
      withClient(async (client) =>
        toTaskCreates((await client.query<TaskCreateSqlRow>(TASK_CREATES_SQL(asText))).rows),
      ),
    countersGivenUp: () =>
      withClient(async (client) =>
        toCountersGivenUp((await client.query<GivenUpSqlRow>(COUNTERS_GIVEN_UP_SQL(asText))).rows),
      ),
    countersRefusedAtMove: () =>
      withClient(async (client) =>
        toRefusedAtMove((await client.query<RefusedSqlRow>(REFUSED_AT_MOVE_SQL(asText))).rows),
      ),
    // count(*) is a bigint, text from pg
    countersSeenWaiting: () =>
      withClient(async (client) =>
        Number((await client.query<{ n: string }>(COUNTERS_SEEN_WAITING_SQL)).rows[0].n),
      ),
    dump: () =>
      withClient(async (client) => {
        const lines: string[] = [];
        for (const table of DUMP_TABLES) {
          const sql = `SELECT row_to_json(t) AS row FROM ${table} t ORDER BY id`;
          for (const { row } of (await client.query<{ row: object }>(sql)).rows)
            lines.push(JSON.stringify({ table, ...row }));
        }
        return lines.join('\n');
      }),
  };
}

export function readLedger(path: string): LedgerView {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return {
      outbox: db.prepare(OUTBOX_SQL).all() as OutboxRow[],
      inbox: db.prepare(INBOX_SQL).all() as { id: number; status: string }[],
      openErrors: db.prepare(ERRORS_SQL).all() as RecordErrorRow[],
      running: db.prepare(RUNNING_SQL).all() as LedgerView['running'],
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

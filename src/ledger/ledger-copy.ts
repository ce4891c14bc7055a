import { EntityManager, EntityTarget, MoreThan, ObjectLiteral } from 'typeorm';
import {
  Cursor,
  HistoryChain,
  HistoryEntry,
  InboxEvent,
  Link,
  OutboxCommand,
  RecordError,
  Run,
} from './entities';
import { Ledger } from './ledger';
import { isPostgres } from './ledger-sql';

const ROWS_PER_BATCH = 1000;

// Tables with an autoincrement id, copied with their ids (links point at runs, operators at ids).
const ID_TABLES: { name: string; entity: EntityTarget<ObjectLiteral & { id: number }> }[] = [
  { name: 'links', entity: Link },
  { name: 'inbox_events', entity: InboxEvent },
  { name: 'outbox_commands', entity: OutboxCommand },
  { name: 'runs', entity: Run },
  { name: 'record_errors', entity: RecordError },
  { name: 'history_entries', entity: HistoryEntry },
];

export type LedgerRowCounts = Record<string, number>;

export class LedgerNotEmptyError extends Error {
  constructor(counts: LedgerRowCounts) {
    const held = Object.entries(counts)
      .filter(([, n]) => n > 0)
      .map(([table, n]) => `${table} ${n}`)
      .join(', ');
    super(`the target ledger already holds rows (${held}); copy only into a new, empty database`);
  }
}

// Copies every row of one ledger into another, ids and states as they are, in one transaction on
// the target: either the whole ledger arrives or nothing does. Rows a crash left in progress
// (`sending` commands, `processing` events, `running` runs) stay so and are recovered by whoever
// runs that brokerage's job next, exactly as after a crash. The source must not be in use.
export async function copyLedger(from: Ledger, to: Ledger): Promise<LedgerRowCounts> {
  const before = await countRows(to);
  if (Object.values(before).some((n) => n > 0)) throw new LedgerNotEmptyError(before);
  await to.transactions.run(async (target) => {
    for (const table of ID_TABLES) {
      let lastId = 0;
      for (;;) {
        const rows = await from.transactions.exclusive((source) =>
          source.find(table.entity, {
            where: { id: MoreThan(lastId) },
            order: { id: 'ASC' },
            take: ROWS_PER_BATCH,
          }),
        );
        if (rows.length === 0) break;
        await insertAsIs(target, table.entity, rows);
        lastId = rows[rows.length - 1].id;
      }
      await continueIdsAfterCopied(target, table.name);
    }
    const cursors = await from.transactions.exclusive((source) => source.find(Cursor));
    for (let i = 0; i < cursors.length; i += ROWS_PER_BATCH) {
      await insertAsIs(target, Cursor, cursors.slice(i, i + ROWS_PER_BATCH));
    }
    // The decision history's chain heads and prune anchors, so verify passes on the copy.
    const chains = await from.transactions.exclusive((source) => source.find(HistoryChain));
    await insertAsIs(target, HistoryChain, chains);
  });
  const copied = await countRows(to);
  const source = await countRows(from);
  for (const [table, n] of Object.entries(source)) {
    if (copied[table] !== n) throw new Error(`copied ${copied[table]} of ${n} rows of ${table}`);
  }
  return copied;
}

export async function countRows(ledger: Ledger): Promise<LedgerRowCounts> {
  return ledger.transactions.exclusive(async (m) => {
    const counts: LedgerRowCounts = {};
    for (const table of [...ID_TABLES.map((t) => t.name), 'cursors', 'history_chains']) {
      const rows: { n: number | string }[] = await m.query(`SELECT COUNT(*) AS n FROM ${table}`);
      counts[table] = Number(rows[0].n);
    }
    return counts;
  });
}

// PostgreSQL hands out serial ids from a sequence that explicit inserts do not move: start it after
// the highest copied id, or the next insert would collide. (SQLite continues after MAX(rowid).)
async function continueIdsAfterCopied(m: EntityManager, table: string): Promise<void> {
  if (!isPostgres(m.connection)) return;
  await m.query(
    `SELECT setval(pg_get_serial_sequence('"${table}"', 'id'), COALESCE(MAX(id), 1), MAX(id) IS NOT NULL) FROM "${table}"`,
  );
}

// INSERT with every column, the id included: TypeORM's insert() leaves generated ids out.
async function insertAsIs<E extends ObjectLiteral>(
  m: EntityManager,
  entity: EntityTarget<E>,
  rows: E[],
): Promise<void> {
  if (rows.length === 0) return;
  const driver = m.connection.driver;
  const metadata = m.connection.getMetadata(entity);
  const columns = metadata.columns;
  const parameters: unknown[] = [];
  const tuples = rows.map((row) => {
    const placeholders = columns.map((column) => {
      parameters.push(driver.preparePersistentValue(column.getEntityValue(row), column));
      return driver.createParameter(`p${parameters.length}`, parameters.length - 1);
    });
    return `(${placeholders.join(', ')})`;
  });
  const names = columns.map((c) => driver.escape(c.databaseName)).join(', ');
  await m.query(
    `INSERT INTO ${driver.escape(metadata.tableName)} (${names}) VALUES ${tuples.join(', ')}`,
    parameters,
  );
}

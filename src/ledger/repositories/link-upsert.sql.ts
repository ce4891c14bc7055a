import { EntityManager } from 'typeorm';
import { Link } from '../entities';
import { chunk } from '../ledger-sql';
import type { LinkInput } from './link.repository';

const ROWS_PER_STATEMENT = 1000;
const COLUMNS = [
  'brokerageId',
  'kind',
  'remoteId',
  'crmId',
  'contentHash',
  'state',
  'lastSeenRunId',
  'readAt',
  'createdAt',
  'updatedAt',
];

// One multi-row INSERT ... ON CONFLICT DO UPDATE per 1,000 links. Built by hand because TypeORM's
// query builder spends more time assembling a 1,000-row insert than SQLite spends running it (see
// docs/ledger.md). The SQL is standard (SQLite ≥ 3.24 and PostgreSQL both accept it); placeholders,
// names and values come from the driver, so it stays portable. Equal SQL text for equal row counts
// lets TypeORM's statement cache reuse the prepared statement.
// `keepExisting`: a link already there for a remote id is left as it is (ON CONFLICT DO NOTHING).
export async function writeLinkRows(
  m: EntityManager,
  brokerageId: string,
  kind: string,
  items: readonly LinkInput[],
  now: Date,
  { keepExisting = false }: { keepExisting?: boolean } = {},
): Promise<void> {
  const driver = m.connection.driver;
  const metadata = m.connection.getMetadata(Link);
  const columns = COLUMNS.map((name) => metadata.findColumnWithPropertyName(name)!);
  const q = (name: string) => driver.escape(name);
  const column = (name: string) => q(metadata.findColumnWithPropertyName(name)!.databaseName);
  const readAtColumn = columns[7];
  const nowValue: unknown = driver.preparePersistentValue(now, columns[8]);
  for (const rows of chunk(items, ROWS_PER_STATEMENT)) {
    const parameters: unknown[] = [];
    const tuples: string[] = [];
    for (const row of rows) {
      const values = [
        brokerageId,
        kind,
        row.remoteId,
        row.crmId,
        row.contentHash,
        'active',
        row.runId ?? null,
        row.readAt ? driver.preparePersistentValue(row.readAt, readAtColumn) : null,
      ];
      const placeholders = values.map((value) => {
        parameters.push(value);
        return driver.createParameter(`p${parameters.length}`, parameters.length - 1);
      });
      parameters.push(nowValue, nowValue);
      placeholders.push(
        driver.createParameter(`p${parameters.length - 1}`, parameters.length - 2),
        driver.createParameter(`p${parameters.length}`, parameters.length - 1),
      );
      tuples.push(`(${placeholders.join(', ')})`);
    }
    const table = q(metadata.tableName);
    const conflict = `ON CONFLICT (${column('brokerageId')}, ${column('kind')}, ${column('remoteId')}) `;
    const sql =
      `INSERT INTO ${table} (${columns.map((c) => q(c.databaseName)).join(', ')}) VALUES ${tuples.join(', ')} ` +
      conflict +
      (keepExisting
        ? 'DO NOTHING'
        : 'DO UPDATE SET ' +
          ['crmId', 'contentHash', 'state', 'readAt', 'updatedAt']
            .map((p) => `${column(p)} = EXCLUDED.${column(p)}`)
            .join(', ') +
          `, ${column('lastSeenRunId')} = COALESCE(EXCLUDED.${column('lastSeenRunId')}, ${table}.${column('lastSeenRunId')})`);
    await m.query(sql, parameters);
  }
}

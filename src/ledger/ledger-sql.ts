import {
  DataSource,
  EntityManager,
  EntityTarget,
  ObjectLiteral,
  QueryResult,
  SelectQueryBuilder,
} from 'typeorm';
import { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';

// Bound parameters per statement stay far below SQLite's 32,766 and PostgreSQL's 65,535.
export const MAX_IDS_PER_QUERY = 5000;

export function chunk<T>(items: readonly T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let i = 0; i < items.length; i += size) chunks.push(items.slice(i, i + size));
  return chunks;
}

export function isPostgres(dataSource: DataSource): boolean {
  return dataSource.options.type === 'postgres';
}

// Claiming rows among concurrent workers: on PostgreSQL `FOR UPDATE SKIP LOCKED`, so a row another
// worker's transaction is claiming right now is passed over instead of claimed twice or waited for.
// SQLite has one writer at a time (BEGIN IMMEDIATE), so it needs no row locks. Must run inside a
// transaction (TypeORM refuses a pessimistic lock outside one).
export function skipLocked<E extends ObjectLiteral>(query: SelectQueryBuilder<E>): SelectQueryBuilder<E> {
  if (!isPostgres(query.connection)) return query;
  return query.setLock('pessimistic_write').setOnLocked('skip_locked');
}

// INSERT ... ON CONFLICT DO NOTHING for one row; says whether the row went in and, if so, its id.
// SQLite reports the change count and last rowid; PostgreSQL needs RETURNING (TypeORM does not emit it
// for SQLite), hence the branch.
export async function insertIgnoringDuplicate<E extends ObjectLiteral>(
  manager: EntityManager,
  target: EntityTarget<E>,
  values: QueryDeepPartialEntity<E>,
): Promise<{ inserted: boolean; id: number | null }> {
  const builder = manager
    .createQueryBuilder()
    .insert()
    .into(target)
    .values(values)
    .orIgnore()
    .updateEntity(false);
  if (isPostgres(manager.connection)) {
    const result = await builder.returning(['id']).execute();
    const rows = result.raw as { id: number }[];
    return rows.length > 0 ? { inserted: true, id: Number(rows[0].id) } : { inserted: false, id: null };
  }
  const [sql, parameters] = builder.getQueryAndParameters();
  const result: QueryResult = await manager.queryRunner!.query(sql, parameters, true);
  return result.affected === 1 ? { inserted: true, id: Number(result.raw) } : { inserted: false, id: null };
}

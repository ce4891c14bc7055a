import { MigrationInterface, QueryRunner, Table, TableColumnOptions, TableIndex } from 'typeorm';

// Written with TypeORM's Table API rather than SQL so the same migration runs on SQLite and PostgreSQL.
// Committed migrations are never edited; later changes get a new migration.
export class InitialLedger1763700000000 implements MigrationInterface {
  name = 'InitialLedger1763700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = new ColumnKit(queryRunner);
    await queryRunner.createTable(
      new Table({
        name: 'links',
        columns: [
          c.id(),
          c.varchar('brokerage_id', 64),
          c.varchar('kind', 64),
          c.varchar('remote_id', 255),
          c.varchar('crm_id', 255),
          c.varchar('content_hash', 128),
          { ...c.varchar('state', 16), default: "'active'" },
          c.int('last_seen_run_id', { nullable: true }),
          c.time('created_at'),
          c.time('updated_at'),
        ],
        indices: [
          unique('uq_links_remote', ['brokerage_id', 'kind', 'remote_id']),
          unique('uq_links_crm', ['brokerage_id', 'kind', 'crm_id']),
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'cursors',
        columns: [
          { ...c.varchar('brokerage_id', 64), isPrimary: true },
          { ...c.varchar('stream', 128), isPrimary: true },
          c.text('cursor'),
          c.time('updated_at'),
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'inbox_events',
        columns: [
          c.id(),
          c.varchar('brokerage_id', 64),
          { ...c.varchar('dedupe_key', 255), isNullable: true },
          c.varchar('event_type', 64),
          { ...c.varchar('ordering_key', 255), isNullable: true },
          c.text('payload'),
          c.varchar('status', 16),
          c.int('attempts', { default: 0 }),
          c.time('next_attempt_at', true),
          c.text('last_error', true),
          c.text('dead_reason', true),
          c.time('received_at'),
          c.time('processed_at', true),
        ],
        indices: [
          unique('uq_inbox_dedupe_key', ['dedupe_key']),
          index('ix_inbox_status_next', ['status', 'next_attempt_at']),
          index('ix_inbox_ordering', ['brokerage_id', 'ordering_key', 'status']),
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'outbox_commands',
        columns: [
          c.id(),
          c.varchar('brokerage_id', 64),
          c.varchar('idempotency_key', 512),
          c.varchar('operation', 64),
          c.varchar('record_ref', 255),
          c.text('payload'),
          c.varchar('state', 16),
          c.int('attempts', { default: 0 }),
          c.time('next_attempt_at', true),
          c.text('result', true),
          c.text('last_error', true),
          c.time('created_at'),
          c.time('updated_at'),
          c.time('sent_at', true),
          c.time('completed_at', true),
        ],
        indices: [
          unique('uq_outbox_idempotency_key', ['idempotency_key']),
          index('ix_outbox_due', ['brokerage_id', 'state', 'next_attempt_at']),
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'runs',
        columns: [
          c.id(),
          c.varchar('brokerage_id', 64),
          c.varchar('job', 64),
          c.varchar('status', 16),
          c.time('started_at'),
          c.time('finished_at', true),
          c.int('read_count', { default: 0 }),
          c.int('created_count', { default: 0 }),
          c.int('updated_count', { default: 0 }),
          c.int('unchanged_count', { default: 0 }),
          c.int('failed_count', { default: 0 }),
          c.text('error', true),
        ],
        indices: [index('ix_runs_brokerage_job', ['brokerage_id', 'job', 'id'])],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'record_errors',
        columns: [
          c.id(),
          c.varchar('brokerage_id', 64),
          c.varchar('record_kind', 64),
          c.varchar('record_ref', 255),
          { ...c.varchar('field', 255), default: "''" },
          c.text('message'),
          { ...c.varchar('code', 64), isNullable: true },
          c.time('first_seen_at'),
          c.time('last_seen_at'),
          c.int('occurrences', { default: 1 }),
          c.time('resolved_at', true),
        ],
        indices: [unique('uq_record_errors_field', ['brokerage_id', 'record_kind', 'record_ref', 'field'])],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['record_errors', 'runs', 'outbox_commands', 'inbox_events', 'cursors', 'links']) {
      await queryRunner.dropTable(table);
    }
  }
}

// Column definitions in portable types; the timestamp type is whatever the driver maps Date to
// (datetime on SQLite, timestamp on PostgreSQL), exactly as for the entities.
class ColumnKit {
  private readonly timestampType: string;

  constructor(queryRunner: QueryRunner) {
    this.timestampType = queryRunner.connection.driver.normalizeType({ type: Date });
  }

  id(): TableColumnOptions {
    return {
      name: 'id',
      type: 'integer',
      isPrimary: true,
      isGenerated: true,
      generationStrategy: 'increment',
    };
  }

  varchar(name: string, length: number): TableColumnOptions {
    return { name, type: 'varchar', length: String(length) };
  }

  text(name: string, nullable = false): TableColumnOptions {
    return { name, type: 'text', isNullable: nullable };
  }

  int(name: string, options: { nullable?: boolean; default?: number }): TableColumnOptions {
    return { name, type: 'integer', isNullable: options.nullable ?? false, default: options.default };
  }

  time(name: string, nullable = false): TableColumnOptions {
    return { name, type: this.timestampType, isNullable: nullable };
  }
}

function unique(name: string, columnNames: string[]): TableIndex {
  return new TableIndex({ name, columnNames, isUnique: true });
}

function index(name: string, columnNames: string[]): TableIndex {
  return new TableIndex({ name, columnNames });
}

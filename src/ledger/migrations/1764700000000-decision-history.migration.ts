import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';

// The decision history (append-only, hash-chained per brokerage) and each brokerage's chain head and
// prune anchor. Table API, so the same migration runs on SQLite and PostgreSQL.
export class DecisionHistory1764700000000 implements MigrationInterface {
  name = 'DecisionHistory1764700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const timestampType = queryRunner.connection.driver.normalizeType({ type: Date });
    await queryRunner.createTable(
      new Table({
        name: 'history_entries',
        columns: [
          {
            name: 'id',
            type: 'integer',
            isPrimary: true,
            isGenerated: true,
            generationStrategy: 'increment',
          },
          { name: 'brokerage_id', type: 'varchar', length: '64' },
          { name: 'seq', type: 'integer' },
          { name: 'record', type: 'varchar', length: '120' },
          { name: 'at', type: timestampType },
          { name: 'source', type: 'varchar', length: '16' },
          { name: 'kind', type: 'varchar', length: '40' },
          { name: 'summary', type: 'text' },
          { name: 'detail', type: 'text' },
          { name: 'outcome', type: 'varchar', length: '40' },
          { name: 'prev_hash', type: 'varchar', length: '64' },
          { name: 'hash', type: 'varchar', length: '64' },
        ],
      }),
    );
    await queryRunner.createIndex(
      'history_entries',
      new TableIndex({ name: 'uq_history_seq', columnNames: ['brokerage_id', 'seq'], isUnique: true }),
    );
    await queryRunner.createIndex(
      'history_entries',
      new TableIndex({ name: 'ix_history_record', columnNames: ['brokerage_id', 'record', 'seq'] }),
    );
    await queryRunner.createIndex(
      'history_entries',
      new TableIndex({ name: 'ix_history_at', columnNames: ['at'] }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'history_chains',
        columns: [
          { name: 'brokerage_id', type: 'varchar', length: '64', isPrimary: true },
          { name: 'head_seq', type: 'integer', default: 0 },
          { name: 'head_hash', type: 'varchar', length: '64' },
          { name: 'anchor_seq', type: 'integer', default: 0 },
          { name: 'anchor_hash', type: 'varchar', length: '64' },
          { name: 'anchored_at', type: timestampType, isNullable: true },
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('history_chains');
    await queryRunner.dropTable('history_entries');
  }
}

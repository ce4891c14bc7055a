import { MigrationInterface, QueryRunner, Table } from 'typeorm';

// Operator pauses per brokerage and job (job '*' pauses the whole brokerage). Table API, so the same
// migration runs on SQLite and PostgreSQL.
export class Pauses1764100000000 implements MigrationInterface {
  name = 'Pauses1764100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const timestampType = queryRunner.connection.driver.normalizeType({ type: Date });
    await queryRunner.createTable(
      new Table({
        name: 'pauses',
        columns: [
          { name: 'brokerage_id', type: 'varchar', length: '64', isPrimary: true },
          { name: 'job', type: 'varchar', length: '64', isPrimary: true },
          { name: 'reason', type: 'text', default: "''" },
          { name: 'paused_at', type: timestampType },
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('pauses');
  }
}

import { MigrationInterface, QueryRunner, Table } from 'typeorm';

// The heartbeats of the workers sharing a PostgreSQL ledger (WorkerHeartbeat). Table API, so the
// same migration runs on SQLite, where the table stays empty.
export class WorkerHeartbeats1764900000000 implements MigrationInterface {
  name = 'WorkerHeartbeats1764900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const timestampType = queryRunner.connection.driver.normalizeType({ type: Date });
    await queryRunner.createTable(
      new Table({
        name: 'worker_heartbeats',
        columns: [
          { name: 'owner', type: 'varchar', length: '160', isPrimary: true },
          { name: 'beat_at', type: timestampType },
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('worker_heartbeats');
  }
}

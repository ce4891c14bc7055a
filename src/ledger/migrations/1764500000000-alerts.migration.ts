import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';

// Alerts and their notifications (src/alerts): state in the ledger, so a restart or a second worker
// never notifies twice. Table API, so the same migration runs on SQLite and PostgreSQL.
export class Alerts1764500000000 implements MigrationInterface {
  name = 'Alerts1764500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const timestampType = queryRunner.connection.driver.normalizeType({ type: Date });
    await queryRunner.createTable(
      new Table({
        name: 'alerts',
        columns: [
          { name: 'key', type: 'varchar', length: '200', isPrimary: true },
          { name: 'kind', type: 'varchar', length: '40' },
          { name: 'brokerage_id', type: 'varchar', length: '64' },
          { name: 'state', type: 'varchar', length: '16' },
          { name: 'episode', type: 'integer', default: 1 },
          { name: 'summary', type: 'text' },
          { name: 'more', type: 'text', default: "''" },
          { name: 'opened_at', type: timestampType },
          { name: 'notified_at', type: timestampType },
          { name: 'renotified', type: 'integer', default: 0 },
          { name: 'resolved_at', type: timestampType, isNullable: true },
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'alert_deliveries',
        columns: [
          { name: 'id', type: 'integer', isPrimary: true, isGenerated: true, generationStrategy: 'increment' },
          { name: 'dedupe_key', type: 'varchar', length: '300' },
          { name: 'alert_key', type: 'varchar', length: '200' },
          { name: 'channel', type: 'varchar', length: '16' },
          { name: 'notice', type: 'text' },
          { name: 'state', type: 'varchar', length: '16' },
          { name: 'attempts', type: 'integer', default: 0 },
          { name: 'next_attempt_at', type: timestampType },
          { name: 'last_error', type: 'text', isNullable: true },
          { name: 'created_at', type: timestampType },
          { name: 'delivered_at', type: timestampType, isNullable: true },
        ],
      }),
    );
    await queryRunner.createIndex(
      'alert_deliveries',
      new TableIndex({ name: 'uq_alert_delivery', columnNames: ['dedupe_key'], isUnique: true }),
    );
    await queryRunner.createIndex(
      'alert_deliveries',
      new TableIndex({ name: 'ix_alert_delivery_due', columnNames: ['state', 'next_attempt_at'] }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('alert_deliveries');
    await queryRunner.dropTable('alerts');
  }
}

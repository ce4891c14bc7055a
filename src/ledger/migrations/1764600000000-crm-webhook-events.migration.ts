import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';

// The event ids of CRM change notifications already taken (HubSpot's eventId), so a redelivery is
// dropped on any worker. Table API, so the same migration runs on SQLite and PostgreSQL.
export class CrmWebhookEvents1764600000000 implements MigrationInterface {
  name = 'CrmWebhookEvents1764600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const timestampType = queryRunner.connection.driver.normalizeType({ type: Date });
    await queryRunner.createTable(
      new Table({
        name: 'crm_webhook_events',
        columns: [
          { name: 'brokerage_id', type: 'varchar', length: '64', isPrimary: true },
          { name: 'crm', type: 'varchar', length: '32', isPrimary: true },
          { name: 'event_id', type: 'varchar', length: '64', isPrimary: true },
          { name: 'received_at', type: timestampType },
        ],
      }),
    );
    await queryRunner.createIndex(
      'crm_webhook_events',
      new TableIndex({
        name: 'IDX_crm_webhook_events_received',
        columnNames: ['brokerage_id', 'crm', 'received_at'],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('crm_webhook_events', 'IDX_crm_webhook_events_received');
    await queryRunner.dropTable('crm_webhook_events');
  }
}

import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';

// An operator's word that the service holds a command of unknown outcome (`cli confirm-received`),
// kept apart from the command's result, which the drain's looks overwrite with their notes. Table
// API, so the same migration runs on SQLite and PostgreSQL.
export class ReceivedConfirmations1765100000000 implements MigrationInterface {
  name = 'ReceivedConfirmations1765100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const timestampType = queryRunner.connection.driver.normalizeType({ type: Date });
    await queryRunner.addColumn(
      'outbox_commands',
      new TableColumn({ name: 'received_confirmed_at', type: timestampType, isNullable: true }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('outbox_commands', 'received_confirmed_at');
  }
}

import { MigrationInterface, QueryRunner, Table } from 'typeorm';

// Facts about the ledger file itself (key/value), such as "this is a demo's ledger", so that what a
// file is can be read from the file and never guessed from the configuration that opened it.
export class LedgerMeta1764000000000 implements MigrationInterface {
  name = 'LedgerMeta1764000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'ledger_meta',
        columns: [
          { name: 'key', type: 'varchar', length: '64', isPrimary: true },
          { name: 'value', type: 'text' },
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('ledger_meta');
  }
}

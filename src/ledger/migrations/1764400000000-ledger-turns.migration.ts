import { MigrationInterface, QueryRunner, Table } from 'typeorm';

// Turns that hold across processes on a SQLite ledger (ledger-turns.ts): a row per key held, naming
// its holder, so the daemon and the operator's `cli sync` never write a brokerage's offer records at
// once. PostgreSQL workers take advisory locks instead, so they have no such table.
export class LedgerTurns1764400000000 implements MigrationInterface {
  name = 'LedgerTurns1764400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    if (queryRunner.connection.options.type === 'postgres') return;
    await queryRunner.createTable(
      new Table({
        name: 'ledger_turns',
        columns: [
          { name: 'key', type: 'varchar', length: '160', isPrimary: true },
          { name: 'owner', type: 'varchar', length: '160' },
          { name: 'taken_at', type: 'varchar', length: '32' },
        ],
      }),
      true,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    if (queryRunner.connection.options.type === 'postgres') return;
    await queryRunner.dropTable('ledger_turns', true);
  }
}

import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';

// Which process holds a run (`<host>/<pid>`, see run-owner.ts): on a SQLite ledger the daemon and the
// operator's `cli sync` are two processes on one file, and a run (with the outbox commands it is
// sending, the inbox events it is processing) is only recovered once its holder is gone. Null on runs
// recorded before this column: their holders are long gone.
export class RunOwners1764300000000 implements MigrationInterface {
  name = 'RunOwners1764300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumn(
      'runs',
      new TableColumn({ name: 'owner', type: 'varchar', length: '160', isNullable: true }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('runs', 'owner');
  }
}

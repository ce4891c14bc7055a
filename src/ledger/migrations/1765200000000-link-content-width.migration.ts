import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';

// A counter's link keeps what is known of it as short JSON in `content_hash`; with every field set
// (a refusal, a lapse, the seller's reject, the service it was sent to) it can pass 128 characters,
// which PostgreSQL refuses. There the type is altered in place (TypeORM's changeColumn drops and
// re-adds a column whose length changes, losing its values); SQLite never enforces the length, but
// its schema is kept equal to the entity's, and changeColumn rebuilds the table with its rows.
export class LinkContentWidth1765200000000 implements MigrationInterface {
  name = 'LinkContentWidth1765200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await widen(queryRunner, 512);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await widen(queryRunner, 128);
  }
}

async function widen(queryRunner: QueryRunner, length: number): Promise<void> {
  if (queryRunner.connection.options.type === 'postgres')
    await queryRunner.query(`ALTER TABLE links ALTER COLUMN content_hash TYPE varchar(${length})`);
  else
    await queryRunner.changeColumn(
      'links',
      'content_hash',
      new TableColumn({ name: 'content_hash', type: 'varchar', length: String(length) }),
    );
}

import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';

// When the data a link vouches for was read from the service, so a writer holding an older answer
// does not write it over a newer one (LinkRepository.classify, `stale`). Null on links written
// before this column: the next write of such a record is never held back.
export class LinkReadTimes1764800000000 implements MigrationInterface {
  name = 'LinkReadTimes1764800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const timestampType = queryRunner.connection.driver.normalizeType({ type: Date });
    await queryRunner.addColumn(
      'links',
      new TableColumn({ name: 'read_at', type: timestampType, isNullable: true }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('links', 'read_at');
  }
}

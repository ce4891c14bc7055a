import { MigrationInterface, QueryRunner, Table } from 'typeorm';

// The remote accounts' shared budgets (ledger/postgres-account-limiter.ts) on PostgreSQL, in the
// shape rate-limiter-flexible's RateLimiterPostgres reads and writes. Created here, under the
// migration lock, rather than by the library: its own CREATE TABLE IF NOT EXISTS, run by two
// limiters or workers at once, can fail with "type already exists". SQLite ledgers count in memory
// (one process), so they have no such table.
export class AccountRateLimits1764200000000 implements MigrationInterface {
  name = 'AccountRateLimits1764200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    if (queryRunner.connection.options.type !== 'postgres') return;
    await queryRunner.createTable(
      new Table({
        name: 'account_rate_limits',
        columns: [
          { name: 'key', type: 'varchar', length: '255', isPrimary: true },
          { name: 'points', type: 'integer', default: 0 },
          { name: 'expire', type: 'bigint', isNullable: true },
        ],
      }),
      true,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    if (queryRunner.connection.options.type !== 'postgres') return;
    await queryRunner.dropTable('account_rate_limits', true);
  }
}

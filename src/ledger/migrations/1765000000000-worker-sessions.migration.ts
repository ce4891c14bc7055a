import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';

// The backend pid of the database session each worker holds open while it lives (LivenessSession):
// a worker whose session is gone died with it, which the fleet sees seconds before its missed
// heartbeats say so. Null for a worker that records no session (an older version): judged by its
// heartbeats alone. Table API, so the same migration runs on SQLite, where the table stays empty.
export class WorkerSessions1765000000000 implements MigrationInterface {
  name = 'WorkerSessions1765000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumn(
      'worker_heartbeats',
      new TableColumn({ name: 'session_pid', type: 'integer', isNullable: true }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('worker_heartbeats', 'session_pid');
  }
}

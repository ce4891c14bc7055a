import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

export type RunStatus = 'running' | 'succeeded' | 'failed' | 'interrupted';

// One row per job run (a poll, a reconcile ...) with what it did.
@Entity({ name: 'runs' })
@Index('ix_runs_brokerage_job', ['brokerageId', 'job', 'id'])
export class Run {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id: number;

  @Column({ name: 'brokerage_id', type: 'varchar', length: 64 })
  brokerageId: string;

  @Column({ type: 'varchar', length: 64 })
  job: string;

  @Column({ type: 'varchar', length: 16 })
  status: RunStatus;

  @Column({ name: 'started_at', type: Date })
  startedAt: Date;

  @Column({ name: 'finished_at', type: Date, nullable: true })
  finishedAt: Date | null;

  @Column({ name: 'read_count', type: 'integer', default: 0 })
  readCount: number;

  @Column({ name: 'created_count', type: 'integer', default: 0 })
  createdCount: number;

  @Column({ name: 'updated_count', type: 'integer', default: 0 })
  updatedCount: number;

  @Column({ name: 'unchanged_count', type: 'integer', default: 0 })
  unchangedCount: number;

  @Column({ name: 'failed_count', type: 'integer', default: 0 })
  failedCount: number;

  @Column({ type: 'text', nullable: true })
  error: string | null;

  // The process that holds (or held) the run, `<host>/<pid>` (ledger/run-owner.ts); null before 2026-11.
  @Column({ type: 'varchar', length: 160, nullable: true })
  owner: string | null;
}

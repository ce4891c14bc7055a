import { Column, Entity, PrimaryColumn } from 'typeorm';

// The last sign of life of each worker sharing a PostgreSQL ledger, on the database's own clock, so
// the workers' clocks need not agree: a worker silent too long (worker-liveness.ts) is dead, and its
// pg-boss jobs are taken over without waiting for their lease. Unused on SQLite, where the operating
// system says whether a run's holder is alive (run-owner.ts).
@Entity({ name: 'worker_heartbeats' })
export class WorkerHeartbeat {
  // The run owner of the worker's process start (`<host>/<pid>#<start>`, run-owner.ts).
  @PrimaryColumn({ type: 'varchar', length: 160 })
  owner: string;

  // UTC, as every ledger timestamp.
  @Column({ name: 'beat_at', type: Date })
  beatAt: Date;

  // The backend pid of the database session the worker holds open while it lives (LivenessSession),
  // as of its last beat; null when it records none.
  @Column({ name: 'session_pid', type: 'integer', nullable: true })
  sessionPid: number | null;
}

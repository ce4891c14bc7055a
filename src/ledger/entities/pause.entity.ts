import { Column, Entity, PrimaryColumn } from 'typeorm';

// The job name a pause of a whole brokerage is stored under (no job is called that).
export const WHOLE_BROKERAGE = '*';

// An operator's pause of one brokerage's job, or of all its jobs (job = '*'). Kept in the ledger so a
// restart, a config reload and every worker see the same pause.
@Entity({ name: 'pauses' })
export class Pause {
  @PrimaryColumn({ name: 'brokerage_id', type: 'varchar', length: 64 })
  brokerageId: string;

  @PrimaryColumn({ type: 'varchar', length: 64 })
  job: string;

  // Why, in the operator's words ('' when none was given).
  @Column({ type: 'text', default: '' })
  reason: string;

  @Column({ name: 'paused_at', type: Date })
  pausedAt: Date;
}

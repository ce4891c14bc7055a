import { Column, Entity, PrimaryColumn } from 'typeorm';

// Where a stream (a poll of one remote list) resumes; moved only with the writes it covers.
@Entity({ name: 'cursors' })
export class Cursor {
  @PrimaryColumn({ name: 'brokerage_id', type: 'varchar', length: 64 })
  brokerageId: string;

  @PrimaryColumn({ type: 'varchar', length: 128 })
  stream: string;

  // Opaque to the ledger: each flow stores its own JSON.
  @Column({ type: 'text' })
  cursor: string;

  @Column({ name: 'updated_at', type: Date })
  updatedAt: Date;
}

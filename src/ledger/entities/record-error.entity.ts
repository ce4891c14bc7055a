import { Column, Entity, Index, PrimaryGeneratedColumn, ValueTransformer } from 'typeorm';

// A unique index treats NULLs as distinct (SQLite and PostgreSQL alike), so "no field" is stored as ''.
const noFieldAsEmpty: ValueTransformer = {
  to: (value: string | null | undefined) => value ?? '',
  from: (value: string) => (value === '' ? null : value),
};

// A record-level failure, per record and field, kept until the record goes through.
@Entity({ name: 'record_errors' })
@Index('uq_record_errors_field', ['brokerageId', 'recordKind', 'recordRef', 'field'], { unique: true })
export class RecordError {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id: number;

  @Column({ name: 'brokerage_id', type: 'varchar', length: 64 })
  brokerageId: string;

  @Column({ name: 'record_kind', type: 'varchar', length: 64 })
  recordKind: string;

  @Column({ name: 'record_ref', type: 'varchar', length: 255 })
  recordRef: string;

  // Null when the error concerns the whole record.
  @Column({ type: 'varchar', length: 255, default: '', transformer: noFieldAsEmpty })
  field: string | null;

  @Column({ type: 'text' })
  message: string;

  @Column({ type: 'varchar', length: 64, nullable: true })
  code: string | null;

  @Column({ name: 'first_seen_at', type: Date })
  firstSeenAt: Date;

  @Column({ name: 'last_seen_at', type: Date })
  lastSeenAt: Date;

  @Column({ type: 'integer', default: 1 })
  occurrences: number;

  @Column({ name: 'resolved_at', type: Date, nullable: true })
  resolvedAt: Date | null;
}

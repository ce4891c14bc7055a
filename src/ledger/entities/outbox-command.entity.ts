import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

export const OUTBOX_STATES = ['pending', 'sending', 'done', 'failed', 'unknown', 'dead'] as const;
export type OutboxState = (typeof OUTBOX_STATES)[number];

// A remote write, recorded before it is executed (ARCHITECTURE.md rule 1).
@Entity({ name: 'outbox_commands' })
@Index('uq_outbox_idempotency_key', ['idempotencyKey'], { unique: true })
@Index('ix_outbox_due', ['brokerageId', 'state', 'nextAttemptAt'])
export class OutboxCommand {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id: number;

  @Column({ name: 'brokerage_id', type: 'varchar', length: 64 })
  brokerageId: string;

  // brokerage + local record + operation, never a fresh value per attempt (see outboxKey()).
  @Column({ name: 'idempotency_key', type: 'varchar', length: 512 })
  idempotencyKey: string;

  @Column({ type: 'varchar', length: 64 })
  operation: string;

  @Column({ name: 'record_ref', type: 'varchar', length: 255 })
  recordRef: string;

  @Column({ type: 'simple-json' })
  payload: unknown;

  @Column({ type: 'varchar', length: 16 })
  state: OutboxState;

  @Column({ type: 'integer', default: 0 })
  attempts: number;

  @Column({ name: 'next_attempt_at', type: Date, nullable: true })
  nextAttemptAt: Date | null;

  @Column({ type: 'simple-json', nullable: true })
  result: unknown;

  @Column({ name: 'last_error', type: 'text', nullable: true })
  lastError: string | null;

  @Column({ name: 'created_at', type: Date })
  createdAt: Date;

  @Column({ name: 'updated_at', type: Date })
  updatedAt: Date;

  @Column({ name: 'sent_at', type: Date, nullable: true })
  sentAt: Date | null;

  @Column({ name: 'completed_at', type: Date, nullable: true })
  completedAt: Date | null;

  // When an operator, having checked the service, said it holds this command's write though its
  // answer was lost (`cli confirm-received`): the next drain finishes the command as answered with
  // no body, where nothing the service lists could show it. Null otherwise.
  @Column({ name: 'received_confirmed_at', type: Date, nullable: true })
  receivedConfirmedAt: Date | null;
}

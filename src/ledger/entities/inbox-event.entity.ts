import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

export const INBOX_STATUSES = ['pending', 'processing', 'done', 'failed', 'dead', 'flagged'] as const;
export type InboxStatus = (typeof INBOX_STATUSES)[number];

// A received webhook event; the autoincrement id is the order of receipt.
@Entity({ name: 'inbox_events' })
@Index('uq_inbox_dedupe_key', ['dedupeKey'], { unique: true })
@Index('ix_inbox_status_next', ['status', 'nextAttemptAt'])
@Index('ix_inbox_ordering', ['brokerageId', 'orderingKey', 'status'])
export class InboxEvent {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id: number;

  @Column({ name: 'brokerage_id', type: 'varchar', length: 64 })
  brokerageId: string;

  // Null only for dead letters of malformed bodies, which have nothing to deduplicate on.
  @Column({ name: 'dedupe_key', type: 'varchar', length: 255, nullable: true })
  dedupeKey: string | null;

  @Column({ name: 'event_type', type: 'varchar', length: 64 })
  eventType: string;

  // Events sharing an ordering key (e.g. one offer request) are applied one at a time, in order.
  @Column({ name: 'ordering_key', type: 'varchar', length: 255, nullable: true })
  orderingKey: string | null;

  // The event as JSON text (or the raw body of a malformed delivery).
  @Column({ type: 'text' })
  payload: string;

  @Column({ type: 'varchar', length: 16 })
  status: InboxStatus;

  @Column({ type: 'integer', default: 0 })
  attempts: number;

  @Column({ name: 'next_attempt_at', type: Date, nullable: true })
  nextAttemptAt: Date | null;

  @Column({ name: 'last_error', type: 'text', nullable: true })
  lastError: string | null;

  @Column({ name: 'dead_reason', type: 'text', nullable: true })
  deadReason: string | null;

  @Column({ name: 'received_at', type: Date })
  receivedAt: Date;

  @Column({ name: 'processed_at', type: Date, nullable: true })
  processedAt: Date | null;
}

import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

export const ALERT_DELIVERY_STATES = ['pending', 'sending', 'delivered', 'failed'] as const;
export type AlertDeliveryState = (typeof ALERT_DELIVERY_STATES)[number];

// One notification of one alert's change of state to one channel: written in the transaction that
// changes the alert, sent (and retried with backoff) by the alert deliverer, never by a sync run.
@Entity({ name: 'alert_deliveries' })
@Index('uq_alert_delivery', ['dedupeKey'], { unique: true })
@Index('ix_alert_delivery_due', ['state', 'nextAttemptAt'])
export class AlertDelivery {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id: number;

  // alert key # episode : transition : renotification : channel.
  @Column({ name: 'dedupe_key', type: 'varchar', length: 300 })
  dedupeKey: string;

  @Column({ name: 'alert_key', type: 'varchar', length: 200 })
  alertKey: string;

  @Column({ type: 'varchar', length: 16 })
  channel: string;

  // The notification as the channel will render it (JSON of an AlertNotice).
  @Column({ type: 'simple-json' })
  notice: Record<string, unknown>;

  @Column({ type: 'varchar', length: 16 })
  state: AlertDeliveryState;

  @Column({ type: 'integer', default: 0 })
  attempts: number;

  @Column({ name: 'next_attempt_at', type: Date })
  nextAttemptAt: Date;

  @Column({ name: 'last_error', type: 'text', nullable: true })
  lastError: string | null;

  @Column({ name: 'created_at', type: Date })
  createdAt: Date;

  @Column({ name: 'delivered_at', type: Date, nullable: true })
  deliveredAt: Date | null;
}

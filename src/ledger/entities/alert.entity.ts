import { Column, Entity, PrimaryColumn } from 'typeorm';

export const ALERT_STATES = ['firing', 'resolved'] as const;
export type AlertState = (typeof ALERT_STATES)[number];

// One alert per key (kind + brokerage + subject), reused for each time the problem comes back: the
// row's `episode` counts the openings, so a notification is keyed by (key, episode, transition) and
// a restart or a second worker never sends the same one twice.
@Entity({ name: 'alerts' })
export class Alert {
  @PrimaryColumn({ type: 'varchar', length: 200 })
  key: string;

  @Column({ type: 'varchar', length: 40 })
  kind: string;

  // '' for an alert about the daemon itself (an alert channel).
  @Column({ name: 'brokerage_id', type: 'varchar', length: 64 })
  brokerageId: string;

  @Column({ type: 'varchar', length: 16 })
  state: AlertState;

  @Column({ type: 'integer', default: 1 })
  episode: number;

  // What is wrong, in an operator's words (record ids at most: never a secret or personal data).
  @Column({ type: 'text' })
  summary: string;

  // The command or page that shows more.
  @Column({ type: 'text', default: '' })
  more: string;

  @Column({ name: 'opened_at', type: Date })
  openedAt: Date;

  @Column({ name: 'notified_at', type: Date })
  notifiedAt: Date;

  // Re-notifications sent in this episode.
  @Column({ type: 'integer', default: 0 })
  renotified: number;

  @Column({ name: 'resolved_at', type: Date, nullable: true })
  resolvedAt: Date | null;
}

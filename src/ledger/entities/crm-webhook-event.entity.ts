import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

// A CRM change notification's event id, once its signature held: a redelivery of the same id
// (HubSpot retries for a day; a replayed capture) is then known on every worker of the ledger.
// Holds no data of the event: a notification only asks for an early crm-changes run.
@Entity({ name: 'crm_webhook_events' })
@Index('IDX_crm_webhook_events_received', ['brokerageId', 'crm', 'receivedAt'])
export class CrmWebhookEvent {
  @PrimaryColumn({ name: 'brokerage_id', type: 'varchar', length: 64 })
  brokerageId: string;

  @PrimaryColumn({ type: 'varchar', length: 32 })
  crm: string;

  @PrimaryColumn({ name: 'event_id', type: 'varchar', length: 64 })
  eventId: string;

  @Column({ name: 'received_at', type: Date })
  receivedAt: Date;
}

import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

export type LinkState = 'active' | 'gone';

// A remote record (offer request, offer, marketplace listing ...) and the CRM record it was written to.
// The width of `content_hash` (LinkContentWidth1765200000000).
export const LINK_CONTENT_WIDTH = 512;

@Entity({ name: 'links' })
@Index('uq_links_remote', ['brokerageId', 'kind', 'remoteId'], { unique: true })
@Index('uq_links_crm', ['brokerageId', 'kind', 'crmId'], { unique: true })
export class Link {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id: number;

  @Column({ name: 'brokerage_id', type: 'varchar', length: 64 })
  brokerageId: string;

  @Column({ type: 'varchar', length: 64 })
  kind: string;

  @Column({ name: 'remote_id', type: 'varchar', length: 255 })
  remoteId: string;

  @Column({ name: 'crm_id', type: 'varchar', length: 255 })
  crmId: string;

  // Hash of what was last written to the CRM: equal hash, no write. A counter's link keeps short
  // JSON here instead (counter-link.ts), hence the width.
  @Column({ name: 'content_hash', type: 'varchar', length: LINK_CONTENT_WIDTH })
  contentHash: string;

  @Column({ type: 'varchar', length: 16, default: 'active' })
  state: LinkState;

  // When the service was asked for the data last written (the clock's time just before the request):
  // an answer read earlier is older than what the record shows and is not written over it. Null when
  // the writer did not say (such a write is never held back, and holds none back).
  @Column({ name: 'read_at', type: Date, nullable: true })
  readAt: Date | null;

  @Column({ name: 'last_seen_run_id', type: 'integer', nullable: true })
  lastSeenRunId: number | null;

  @Column({ name: 'created_at', type: Date })
  createdAt: Date;

  @Column({ name: 'updated_at', type: Date })
  updatedAt: Date;
}

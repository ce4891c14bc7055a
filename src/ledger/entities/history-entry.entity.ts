import { Column, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';

export const HISTORY_SOURCES = ['agent', 'daemon', 'service', 'webhook'] as const;
export type HistorySource = (typeof HISTORY_SOURCES)[number];

// One entry of the decision history (append-only): something the daemon saw or made happen on an
// offer, an offer request or a listing deal. `seq` numbers a brokerage's chain; `hash` is sha256 over
// the entry's fields and `prev_hash` (the hash of the entry before it), so an entry edited or removed
// by hand is found by `verify` (repositories/history.repository.ts).
@Entity({ name: 'history_entries' })
@Index('uq_history_seq', ['brokerageId', 'seq'], { unique: true })
@Index('ix_history_record', ['brokerageId', 'record', 'seq'])
@Index('ix_history_at', ['at'])
export class HistoryEntry {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id: number;

  @Column({ name: 'brokerage_id', type: 'varchar', length: 64 })
  brokerageId: string;

  @Column({ type: 'integer' })
  seq: number;

  // `offer:7012`, `request:55`, `deal:901`.
  @Column({ type: 'varchar', length: 120 })
  record: string;

  @Column({ type: Date })
  at: Date;

  @Column({ type: 'varchar', length: 16 })
  source: HistorySource;

  // agent_move, command_queued, command_sent, service_answer, event_applied, cascade, write_back, record_shown.
  @Column({ type: 'varchar', length: 40 })
  kind: string;

  // In an operator's words; ids and amounts at most, never a secret or personal data.
  @Column({ type: 'text' })
  summary: string;

  // Canonical JSON (sorted keys) of amounts, statuses, command and event ids.
  @Column({ type: 'text' })
  detail: string;

  @Column({ type: 'varchar', length: 40 })
  outcome: string;

  @Column({ name: 'prev_hash', type: 'varchar', length: 64 })
  prevHash: string;

  @Column({ type: 'varchar', length: 64 })
  hash: string;
}

// A brokerage's chain: its head (the last entry appended, locked by every append so two workers
// append one after the other) and its anchor (the last entry a prune removed, so the first entry
// kept still chains to something known).
@Entity({ name: 'history_chains' })
export class HistoryChain {
  @PrimaryColumn({ name: 'brokerage_id', type: 'varchar', length: 64 })
  brokerageId: string;

  @Column({ name: 'head_seq', type: 'integer', default: 0 })
  headSeq: number;

  @Column({ name: 'head_hash', type: 'varchar', length: 64 })
  headHash: string;

  @Column({ name: 'anchor_seq', type: 'integer', default: 0 })
  anchorSeq: number;

  @Column({ name: 'anchor_hash', type: 'varchar', length: 64 })
  anchorHash: string;

  @Column({ name: 'anchored_at', type: Date, nullable: true })
  anchoredAt: Date | null;
}

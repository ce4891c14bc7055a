export { Ledger, openLedger } from './ledger';
export type { OpenLedgerOptions } from './ledger';
export { LedgerModule } from './ledger.module';
export type { LedgerModuleOptions } from './ledger.module';
export { LedgerTransactions, NestedLedgerWorkError } from './ledger-transactions';
export { LedgerTurns } from './ledger-turns';
export { LedgerRetention, INBOX_DEDUPE_RETENTION_MS } from './ledger.retention';
export type { PruneCounts } from './ledger.retention';
export { applyLedgerPragmas, createLedgerDataSource, DEFAULT_LEDGER_PATH } from './ledger.data-source';
export { outboxKey } from './outbox-key';
export { requestOrderingKey } from './inbox-ordering';
export { withSessionAdvisoryLock } from './advisory-lock';
export { LedgerStateError } from './repositories/ledger-state.error';
export { CrmWebhookEventRepository } from './repositories/crm-webhook-event.repository';
export { CursorRepository } from './repositories/cursor.repository';
export { InboxRepository } from './repositories/inbox.repository';
export type { InboxListFilter, NewInboxEvent, StatusCounts } from './repositories/inbox.repository';
export { LinkRepository } from './repositories/link.repository';
export type { LinkClass, LinkInput, LinkOutcome } from './repositories/link.repository';
export {
  AWAITING_EVIDENCE_NOTE,
  didNothing,
  keptAnswerOf,
  OutboxRepository,
  wasNotSent,
  wasRefused,
  type DeadEnd,
} from './repositories/outbox.repository';
export type {
  NewOutboxCommand,
  OutboxReplayFilter,
  UnknownResolution,
} from './repositories/outbox.repository';
export { AlertRepository } from './repositories/alert.repository';
export type {
  AlertChange,
  AlertOpening,
  ChannelHealth,
  NoticeBuilder,
} from './repositories/alert.repository';
export { HistoryRepository, historyHash } from './repositories/history.repository';
export type {
  HistoryBreak,
  HistoryExportFilter,
  HistoryVerification,
  NewHistoryEntry,
} from './repositories/history.repository';
export { PauseRepository } from './repositories/pause.repository';
export { RecordErrorRepository } from './repositories/record-error.repository';
export type { RecordErrorInput } from './repositories/record-error.repository';
export { RunRepository } from './repositories/run.repository';
export { WorkerHeartbeatRepository } from './repositories/worker-heartbeat.repository';
export { deadAfterSeconds, MISSED_BEATS_BEFORE_DEAD, workerDeath, type WorkerDeath } from './worker-liveness';
export type { FailureStreak, RunCounts, RunFinish } from './repositories/run.repository';
export * from './entities';

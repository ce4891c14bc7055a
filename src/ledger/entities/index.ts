import { Alert } from './alert.entity';
import { AlertDelivery } from './alert-delivery.entity';
import { CrmWebhookEvent } from './crm-webhook-event.entity';
import { Cursor } from './cursor.entity';
import { HistoryChain, HistoryEntry } from './history-entry.entity';
import { InboxEvent } from './inbox-event.entity';
import { Link } from './link.entity';
import { OutboxCommand } from './outbox-command.entity';
import { Pause } from './pause.entity';
import { RecordError } from './record-error.entity';
import { Run } from './run.entity';
import { WorkerHeartbeat } from './worker-heartbeat.entity';

export {
  Alert,
  AlertDelivery,
  CrmWebhookEvent,
  Cursor,
  HistoryChain,
  HistoryEntry,
  InboxEvent,
  Link,
  OutboxCommand,
  Pause,
  RecordError,
  Run,
  WorkerHeartbeat,
};
export { CREDENTIAL_REMOTES, credentialOfPause, credentialPauseJob, WHOLE_BROKERAGE } from './pause.entity';
export type { CredentialRemote } from './pause.entity';
export { INBOX_STATUSES } from './inbox-event.entity';
export type { InboxStatus } from './inbox-event.entity';
export { LINK_CONTENT_WIDTH } from './link.entity';
export type { LinkState } from './link.entity';
export { OUTBOX_STATES } from './outbox-command.entity';
export type { OutboxState } from './outbox-command.entity';
export type { RunStatus } from './run.entity';

export { ALERT_STATES } from './alert.entity';
export type { AlertState } from './alert.entity';
export type { AlertDeliveryState } from './alert-delivery.entity';
export { HISTORY_SOURCES } from './history-entry.entity';
export type { HistorySource } from './history-entry.entity';

export const LEDGER_ENTITIES = [
  Link,
  Cursor,
  InboxEvent,
  OutboxCommand,
  Run,
  RecordError,
  Pause,
  Alert,
  AlertDelivery,
  CrmWebhookEvent,
  HistoryEntry,
  HistoryChain,
  WorkerHeartbeat,
];

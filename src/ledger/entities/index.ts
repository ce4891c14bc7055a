import { CrmWebhookEvent } from './crm-webhook-event.entity';
import { Cursor } from './cursor.entity';
import { InboxEvent } from './inbox-event.entity';
import { Link } from './link.entity';
import { OutboxCommand } from './outbox-command.entity';
import { Pause } from './pause.entity';
import { RecordError } from './record-error.entity';
import { Run } from './run.entity';

export { CrmWebhookEvent, Cursor, InboxEvent, Link, OutboxCommand, Pause, RecordError, Run };
export { WHOLE_BROKERAGE } from './pause.entity';
export { INBOX_STATUSES } from './inbox-event.entity';
export type { InboxStatus } from './inbox-event.entity';
export type { LinkState } from './link.entity';
export { OUTBOX_STATES } from './outbox-command.entity';
export type { OutboxState } from './outbox-command.entity';
export type { RunStatus } from './run.entity';

export const LEDGER_ENTITIES = [
  Link,
  Cursor,
  InboxEvent,
  OutboxCommand,
  Run,
  RecordError,
  Pause,
  CrmWebhookEvent,
];

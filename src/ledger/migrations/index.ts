import { InitialLedger1763700000000 } from './1763700000000-initial-ledger.migration';
import { LedgerMeta1764000000000 } from './1764000000000-ledger-meta.migration';
import { Pauses1764100000000 } from './1764100000000-pauses.migration';
import { AccountRateLimits1764200000000 } from './1764200000000-account-rate-limits.migration';
import { RunOwners1764300000000 } from './1764300000000-run-owners.migration';
import { LedgerTurns1764400000000 } from './1764400000000-ledger-turns.migration';
import { Alerts1764500000000 } from './1764500000000-alerts.migration';
import { CrmWebhookEvents1764600000000 } from './1764600000000-crm-webhook-events.migration';
import { DecisionHistory1764700000000 } from './1764700000000-decision-history.migration';
import { LinkReadTimes1764800000000 } from './1764800000000-link-read-times.migration';
import { WorkerHeartbeats1764900000000 } from './1764900000000-worker-heartbeats.migration';
import { WorkerSessions1765000000000 } from './1765000000000-worker-sessions.migration';
import { ReceivedConfirmations1765100000000 } from './1765100000000-received-confirmations.migration';
import { LinkContentWidth1765200000000 } from './1765200000000-link-content-width.migration';

// In order of application; listed explicitly so jest and the compiled build load the same set.
export const LEDGER_MIGRATIONS = [
  InitialLedger1763700000000,
  LedgerMeta1764000000000,
  Pauses1764100000000,
  AccountRateLimits1764200000000,
  RunOwners1764300000000,
  LedgerTurns1764400000000,
  Alerts1764500000000,
  CrmWebhookEvents1764600000000,
  DecisionHistory1764700000000,
  LinkReadTimes1764800000000,
  WorkerHeartbeats1764900000000,
  WorkerSessions1765000000000,
  ReceivedConfirmations1765100000000,
  LinkContentWidth1765200000000,
];

import {
  DynamicModule,
  Global,
  Inject,
  Injectable,
  Module,
  OnApplicationShutdown,
  Provider,
} from '@nestjs/common';
import { Clock } from '../common/clock';
import { SHARED_ACCOUNT_LIMITER } from '../common/shared-account-limiter';
import { Ledger, openLedger } from './ledger';
import { DEFAULT_LEDGER_PATH } from './ledger.data-source';
import { LedgerRetention } from './ledger.retention';
import { LedgerTransactions } from './ledger-transactions';
import { LedgerTurns } from './ledger-turns';
import { PostgresAccountLimiter } from './postgres-account-limiter';
import { AlertRepository } from './repositories/alert.repository';
import { CrmWebhookEventRepository } from './repositories/crm-webhook-event.repository';
import { CursorRepository } from './repositories/cursor.repository';
import { HistoryRepository } from './repositories/history.repository';
import { InboxRepository } from './repositories/inbox.repository';
import { LinkRepository } from './repositories/link.repository';
import { OutboxRepository } from './repositories/outbox.repository';
import { PauseRepository } from './repositories/pause.repository';
import { RecordErrorRepository } from './repositories/record-error.repository';
import { RunRepository } from './repositories/run.repository';
import { WorkerHeartbeatRepository } from './repositories/worker-heartbeat.repository';

export interface LedgerModuleOptions {
  databasePath?: string;
  // postgres://… : the ledger shared by several workers (see docs/operations.md).
  url?: string;
  logging?: boolean;
}

// Closes the ledger when Nest shuts down (after in-flight work has drained).
@Injectable()
class LedgerCloser implements OnApplicationShutdown {
  constructor(@Inject(Ledger) private readonly ledger: Ledger) {}

  async onApplicationShutdown(): Promise<void> {
    await this.ledger.close();
  }
}

const parts: [abstract new (...args: never[]) => unknown, (ledger: Ledger) => unknown][] = [
  [LedgerTransactions, (l) => l.transactions],
  [LedgerTurns, (l) => l.turns],
  [LinkRepository, (l) => l.links],
  [CursorRepository, (l) => l.cursors],
  [InboxRepository, (l) => l.inbox],
  [OutboxRepository, (l) => l.outbox],
  [RunRepository, (l) => l.runs],
  [RecordErrorRepository, (l) => l.recordErrors],
  [LedgerRetention, (l) => l.retention],
  [PauseRepository, (l) => l.pauses],
  [AlertRepository, (l) => l.alerts],
  [CrmWebhookEventRepository, (l) => l.crmWebhookEvents],
  [HistoryRepository, (l) => l.history],
  [WorkerHeartbeatRepository, (l) => l.heartbeats],
];

// Provides the Ledger and each repository, globally. Uses the app's Clock provider when there is one.
@Global()
@Module({})
export class LedgerModule {
  static forRoot(options: LedgerModuleOptions = {}): DynamicModule {
    const providers: Provider[] = [
      {
        provide: Ledger,
        inject: [{ token: Clock, optional: true }],
        useFactory: (clock?: Clock) =>
          openLedger({
            databasePath: options.databasePath ?? DEFAULT_LEDGER_PATH,
            url: options.url,
            clock,
            logging: options.logging,
          }),
      },
      ...parts.map(([token, pick]) => ({ provide: token, inject: [Ledger], useFactory: pick })),
      // Workers sharing a PostgreSQL ledger share their remote accounts' budgets there too.
      {
        provide: SHARED_ACCOUNT_LIMITER,
        inject: [Ledger],
        useFactory: (ledger: Ledger) =>
          ledger.dataSource.options.type === 'postgres'
            ? new PostgresAccountLimiter(ledger.dataSource)
            : null,
      },
      LedgerCloser,
    ];
    return {
      module: LedgerModule,
      providers,
      exports: [Ledger, SHARED_ACCOUNT_LIMITER, ...parts.map(([token]) => token)],
    };
  }
}

import { Injectable, Logger, Module, type OnModuleInit } from '@nestjs/common';
import { OutboxRepository } from '../../ledger';
import { OutboxModule } from './outbox.module';
import { OutboxExecutors } from './outbox.executors';

// At daemon start (after the executors are found, before anything is scheduled): every operation
// the ledger still has work for must have an executor. If not, the daemon refuses to start and names
// it. Such commands come from another build of the daemon (a rollback, or a worker of a newer version
// on the same ledger); marking them dead would drop writes agents asked for, and leaving them
// pending would hide them, so the operator decides: run the build that knows the operation, or
// dead-letter them knowingly. Not in the CLI, so `status` and `errors` still work on such a ledger.
@Injectable()
export class OutboxOperationsCheck implements OnModuleInit {
  private readonly logger = new Logger(OutboxOperationsCheck.name);

  constructor(
    private readonly outbox: OutboxRepository,
    private readonly executors: OutboxExecutors,
  ) {}

  async onModuleInit(): Promise<void> {
    const live = await this.outbox.liveOperations();
    const orphans = live.filter((entry) => !this.executors.get(entry.operation));
    if (orphans.length === 0) return;
    const named = orphans
      .map((o) => `"${o.operation}" (${o.count} command(s) of ${o.brokerages.join(', ')})`)
      .join('; ');
    const message =
      `the ledger holds outbox commands no executor of this build knows: ${named}. ` +
      `Known operations: ${this.executors.operations().join(', ')}. Start the build that queued them, ` +
      `or dead-letter them deliberately (docs/operations.md, "Unknown outbox operations at start").`;
    this.logger.error(message);
    throw new Error(message);
  }
}

// Daemon-only (see DAEMON_ONLY_MODULES).
@Module({ imports: [OutboxModule], providers: [OutboxOperationsCheck] })
export class OutboxOperationsCheckModule {}

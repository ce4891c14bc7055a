import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { Ledger } from '../ledger';
import { isPostgres } from '../ledger/ledger-sql';

// At daemon start, before anything is scheduled (every onModuleInit runs before any bootstrap hook):
// what a crash left half-done is put right. Not in the CLI, which may run beside a live daemon.
@Injectable()
export class LedgerRecovery implements OnModuleInit {
  private readonly logger = new Logger(LedgerRecovery.name);

  constructor(private readonly ledger: Ledger) {}

  async onModuleInit(): Promise<void> {
    // A shared (PostgreSQL) ledger: other workers are working on those rows right now. Each
    // (brokerage, job) is recovered by whoever takes it over next (RunRepository.claim with the singleton held).
    if (isPostgres(this.ledger.dataSource)) return;
    const recovered = await this.ledger.recoverInterrupted();
    if (recovered.runs + recovered.outbox + recovered.inbox > 0) {
      this.logger.warn(
        `recovered after an unclean stop: ${recovered.runs} run(s) marked interrupted, ${recovered.outbox} outbox command(s) to reconcile, ${recovered.inbox} inbox event(s) made pending again`,
      );
    }
  }
}

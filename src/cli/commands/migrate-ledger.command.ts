import { Inject } from '@nestjs/common';
import { existsSync } from 'node:fs';
import { Command, CommandRunner, Option } from 'nest-commander';
import { isProcessAlive, readPidFile } from '../../app/daemon-pid.file';
import { DAEMON_SETTINGS } from '../../config/config.module';
import type { DaemonSettings } from '../../config/daemon-settings';
import { openLedger } from '../../ledger/ledger';
import { copyLedger } from '../../ledger/ledger-copy';
import { isPostgresUrl } from '../../ledger/ledger-postgres.data-source';
import { CliOutput } from '../output/cli-output';

interface MigrateLedgerOptions {
  to?: string;
  from?: string;
  json?: boolean;
}

// Moves the SQLite ledger (LEDGER_PATH, or --from) into an empty PostgreSQL database, so the daemon
// can run there as one of several workers (LEDGER_URL). Every link, cursor, command and event comes
// along with its state, so nothing already sent is sent again.
@Command({
  name: 'migrate-ledger',
  description: 'copy the SQLite ledger into an empty PostgreSQL database (stop the daemon first)',
})
export class MigrateLedgerCommand extends CommandRunner {
  constructor(
    @Inject(DAEMON_SETTINGS) private readonly settings: DaemonSettings,
    private readonly output: CliOutput,
  ) {
    super();
  }

  async run(_params: string[], options: MigrateLedgerOptions = {}): Promise<void> {
    const from = options.from ?? this.settings.ledgerPath;
    const to = options.to;
    if (!isPostgresUrl(to)) return this.output.fail('--to must be a postgres:// URL');
    if (!existsSync(from)) return this.output.fail(`no SQLite ledger at ${from}`);
    const pid = readPidFile(from);
    if (pid !== undefined && isProcessAlive(pid)) {
      return this.output.fail(`a daemon (pid ${pid}) is using ${from}; stop it before moving its ledger`);
    }
    const source = await openLedger({ databasePath: from });
    try {
      const target = await openLedger({ databasePath: from, url: to });
      try {
        const copied = await copyLedger(source, target);
        if (options.json) this.output.json({ migrated: true, from, rows: copied });
        else {
          this.output.print(
            `copied ${from} to PostgreSQL: ${Object.entries(copied)
              .map(([table, n]) => `${table} ${n}`)
              .join(', ')}\nstart the daemon with LEDGER_URL set to that database (docs/operations.md)`,
          );
        }
      } finally {
        await target.close();
      }
    } catch (error) {
      this.output.fail(`not migrated: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      await source.close();
    }
  }

  @Option({ flags: '--to <url>', description: 'the PostgreSQL database (postgres://…), empty' })
  parseTo(value: string): string {
    return value;
  }

  @Option({ flags: '--from <path>', description: 'the SQLite ledger file (default: LEDGER_PATH)' })
  parseFrom(value: string): string {
    return value;
  }

  @Option({ flags: '--json', description: 'machine-readable output' })
  parseJson(): boolean {
    return true;
  }
}

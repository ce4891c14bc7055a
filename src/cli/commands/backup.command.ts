import { Inject } from '@nestjs/common';
import { resolve } from 'node:path';
import { Command, CommandRunner, Option } from 'nest-commander';
import { DAEMON_SETTINGS } from '../../config/config.module';
import type { DaemonSettings } from '../../config/daemon-settings';
import { backupLedger } from '../../ledger/ledger-backup';
import { CliOutput } from '../output/cli-output';

// A consistent copy of the ledger, safe while the daemon runs (SQLite's online backup), to a path
// the operator names: created 0600, never over an existing file.
@Command({ name: 'backup', description: 'copy the ledger to a new file, safely while the daemon runs' })
export class BackupCommand extends CommandRunner {
  constructor(
    @Inject(DAEMON_SETTINGS) private readonly settings: DaemonSettings,
    private readonly output: CliOutput,
  ) {
    super();
  }

  async run(_params: string[], options: { to?: string; json?: boolean } = {}): Promise<void> {
    if (!options.to) {
      this.output.fail('backup needs --to <path>: the new file to write (it must not exist yet)');
      process.exitCode = 1;
      return;
    }
    const destination = resolve(options.to);
    try {
      const { bytes } = await backupLedger(this.settings.ledgerPath, destination);
      if (options.json) this.output.json({ ledger: this.settings.ledgerPath, backup: destination, bytes });
      else
        this.output.print(
          `backed up ${this.settings.ledgerPath} to ${destination} (${bytes} bytes, mode 0600)`,
        );
    } catch (error) {
      this.output.fail(`backup failed: ${error instanceof Error ? error.message : String(error)}`);
      process.exitCode = 1;
    }
  }

  @Option({ flags: '--to <path>', description: 'the backup file to create (refused if it exists)' })
  parseTo(value: string): string {
    return value;
  }

  @Option({ flags: '--json', description: 'machine-readable output' })
  parseJson(): boolean {
    return true;
  }
}

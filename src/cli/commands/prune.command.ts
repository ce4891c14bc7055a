import { Inject } from '@nestjs/common';
import { Command, CommandRunner, Option } from 'nest-commander';
import { Clock } from '../../common/clock';
import { DAEMON_SETTINGS } from '../../config/config.module';
import type { DaemonSettings } from '../../config/daemon-settings';
import { LedgerRetention } from '../../ledger/ledger.retention';
import { retentionCutoffs } from '../../ledger/retention-policy';
import { CliOutput } from '../output/cli-output';

// What the daemon does every hour, now: deletes finished history older than RETENTION_DAYS and dead
// or flagged webhook bodies older than RETENTION_DEAD_DAYS (or the ages given here), and decision
// history older than HISTORY_RETENTION_DAYS.
@Command({ name: 'prune', description: 'delete ledger history older than the retention ages' })
export class PruneCommand extends CommandRunner {
  constructor(
    private readonly retention: LedgerRetention,
    private readonly clock: Clock,
    @Inject(DAEMON_SETTINGS) private readonly settings: DaemonSettings,
    private readonly output: CliOutput,
  ) {
    super();
  }

  async run(
    _params: string[],
    options: { days?: number; deadDays?: number; json?: boolean } = {},
  ): Promise<void> {
    const ages = {
      retentionDays: options.days ?? this.settings.retentionDays,
      retentionDeadDays: options.deadDays ?? this.settings.retentionDeadDays,
      historyRetentionDays: this.settings.historyRetentionDays,
    };
    const counts = await this.retention.prune(retentionCutoffs(ages, this.clock));
    if (options.json) this.output.json({ ...ages, pruned: counts });
    else
      this.output.print(
        `pruned ${counts.runs} run(s), ${counts.outbox} done command(s), ${counts.inbox} processed event(s) and ${counts.recordErrors} resolved error(s) older than ${ages.retentionDays} day(s), and ${counts.deadInbox} dead or flagged webhook body(ies) older than ${ages.retentionDeadDays} day(s); ${counts.history} decision-history entry(ies) older than ${ages.historyRetentionDays} day(s)`,
      );
  }

  @Option({ flags: '--days <n>', description: 'history older than this many days (default RETENTION_DAYS)' })
  parseDays(value: string): number {
    return parseDays('--days', value);
  }

  @Option({
    flags: '--dead-days <n>',
    description: 'dead and flagged webhook bodies older than this many days (default RETENTION_DEAD_DAYS)',
  })
  parseDeadDays(value: string): number {
    return parseDays('--dead-days', value);
  }

  @Option({ flags: '--json', description: 'machine-readable output' })
  parseJson(): boolean {
    return true;
  }
}

function parseDays(flag: string, value: string): number {
  const days = Number(value);
  if (!Number.isInteger(days) || days < 1 || days > 3650)
    throw new Error(`${flag} must be a whole number of days from 1 to 3650, got "${value}"`);
  return days;
}

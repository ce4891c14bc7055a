import { Command, CommandRunner, Option } from 'nest-commander';
import { JobRunner } from '../../scheduler/job-runner.service';
import { PgBossOnce } from '../../scheduler/pg-boss/pg-boss.once';
import type { JobName } from '../../scheduler/job.types';
import { CliOutput } from '../output/cli-output';
import { ProgressPrinter } from '../output/progress.printer';
import { renderTable } from '../output/table';
import { parseJob, type CommonOptions } from './cli-options';

interface SyncOptions extends CommonOptions {
  job?: JobName;
  once?: boolean;
  dryRun?: boolean;
  force?: boolean;
}

// Runs one job of one brokerage now, through the same JobRunner as cron (so never beside a running
// one in this process), and prints its counts. --dry-run classifies exactly like a real run and
// writes nothing: no CRM write, no outbox command, no cursor move, no run recorded.
// A paused job (or brokerage) is refused, dry run included, unless --force: the operator paused it for
// a reason, and a one-off run should be a decision, not an accident.
// On a PostgreSQL ledger a real run takes the pair's pg-boss singleton, as a worker would, and is
// refused while a worker holds it; a dry run writes nothing and needs no singleton.
@Command({
  name: 'sync',
  description: 'run one job of one brokerage once (--dry-run: show what would change, write nothing)',
})
export class SyncCommand extends CommandRunner {
  constructor(
    private readonly runner: JobRunner,
    private readonly shared: PgBossOnce,
    private readonly output: CliOutput,
  ) {
    super();
  }

  async run(_params: string[], options: SyncOptions = {}): Promise<void> {
    if (!options.brokerage || !options.job) {
      this.output.fail('sync needs --brokerage <id> and --job <job>');
      return;
    }
    const label = `${options.brokerage} ${options.job}${options.dryRun ? ' (dry run)' : ''}`;
    const progress = new ProgressPrinter(label);
    const runOptions = {
      dryRun: options.dryRun === true,
      onProgress: progress.update,
      ignorePause: options.force === true,
    };
    const outcome =
      this.shared.applies() && !options.dryRun
        ? await this.shared.run(options.brokerage, options.job, runOptions)
        : await this.runner.run(options.brokerage, options.job, runOptions);
    progress.finish();
    if (options.json) this.output.json({ ...outcome, dryRun: options.dryRun === true });
    else {
      const { counts } = outcome;
      this.output.print(
        renderTable(
          ['BROKERAGE', 'JOB', 'STATUS', 'READ', 'CREATED', 'UPDATED', 'UNCHANGED', 'FAILED'],
          [
            [
              outcome.brokerageId,
              outcome.job,
              outcome.status,
              counts.read,
              counts.created,
              counts.updated,
              counts.unchanged,
              counts.failed,
            ],
          ],
        ),
      );
      if (options.dryRun)
        this.output.print('dry run: the counts say what would be created or updated; nothing was written');
      if (outcome.reason) this.output.print(outcome.reason);
      if (outcome.left) this.output.print(outcome.left);
      if (outcome.paused) this.output.print('(to run it anyway once: add --force)');
      if (outcome.error) this.output.error(`error: ${outcome.error}`);
    }
    if (outcome.status === 'failed' || outcome.status === 'skipped') process.exitCode = 1;
  }

  @Option({ flags: '-b, --brokerage <id>', description: 'the brokerage', required: true })
  parseBrokerage(value: string): string {
    return value;
  }

  @Option({
    flags: '-j, --job <job>',
    description: 'crm-changes, offers-reconcile, marketplace, outbox-drain or inbox-drain',
    required: true,
  })
  parseJob(value: string): JobName {
    return parseJob(value);
  }

  @Option({ flags: '--once', description: 'run once and exit (the only mode; accepted for clarity)' })
  parseOnce(): boolean {
    return true;
  }

  @Option({
    flags: '--dry-run',
    description: 'show what would be created, updated or left unchanged; write nothing',
  })
  parseDryRun(): boolean {
    return true;
  }

  @Option({ flags: '--force', description: 'run even though the job or its brokerage is paused' })
  parseForce(): boolean {
    return true;
  }

  @Option({ flags: '--json', description: 'machine-readable output' })
  parseJson(): boolean {
    return true;
  }
}

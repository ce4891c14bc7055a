import { Command, CommandRunner, Option } from 'nest-commander';
import { JobPauseService } from '../../scheduler/job-pause.service';
import type { JobName } from '../../scheduler/job.types';
import { CliOutput } from '../output/cli-output';
import { parseJob, type CommonOptions } from './cli-options';

interface PauseOptions extends CommonOptions {
  job?: JobName;
  reason?: string;
}

// Stops cron from starting a brokerage's jobs (or one job) until `resume`; kept in the ledger, so the
// running daemon sees it at its next tick and a restart keeps it. A run in progress finishes.
@Command({
  name: 'pause',
  description: 'pause a brokerage (all its jobs) or one job (--job) until resume; kept across restarts',
})
export class PauseCommand extends CommandRunner {
  constructor(
    private readonly pauses: JobPauseService,
    private readonly output: CliOutput,
  ) {
    super();
  }

  async run(_params: string[], options: PauseOptions = {}): Promise<void> {
    if (!options.brokerage) {
      this.output.fail('pause needs --brokerage <id> (and optionally --job <job>)');
      return;
    }
    const pause = await this.pauses.pause(options.brokerage, options.job, options.reason);
    if (options.json) this.output.json({ paused: pause });
    else
      this.output.print(
        `paused ${pause.job ? `${pause.job} of brokerage ${pause.brokerageId}` : `brokerage ${pause.brokerageId} (all jobs)`}` +
          ` since ${pause.pausedAt.toISOString()}; cron skips it until: cli resume --brokerage ${pause.brokerageId}${pause.job ? ` --job ${pause.job}` : ''}`,
      );
  }

  @Option({ flags: '-b, --brokerage <id>', description: 'the brokerage', required: true })
  parseBrokerage(value: string): string {
    return value;
  }

  @Option({ flags: '-j, --job <job>', description: 'only this job' })
  parseJob(value: string): JobName {
    return parseJob(value);
  }

  @Option({ flags: '--reason <text>', description: 'why, shown in status and on the status page' })
  parseReason(value: string): string {
    return value;
  }

  @Option({ flags: '--json', description: 'machine-readable output' })
  parseJson(): boolean {
    return true;
  }
}

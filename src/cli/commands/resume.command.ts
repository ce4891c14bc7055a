import { Command, CommandRunner, Option } from 'nest-commander';
import { JobPauseService } from '../../scheduler/job-pause.service';
import type { JobName } from '../../scheduler/job.types';
import { CliOutput } from '../output/cli-output';
import { parseJob, type CommonOptions } from './cli-options';

// Lifts a pause set by `pause` (the same target: the brokerage, or --job). A job paused on its own
// stays paused when its brokerage is resumed, and the other way round.
@Command({ name: 'resume', description: 'lift a pause of a brokerage or of one job (--job)' })
export class ResumeCommand extends CommandRunner {
  constructor(
    private readonly pauses: JobPauseService,
    private readonly output: CliOutput,
  ) {
    super();
  }

  async run(_params: string[], options: CommonOptions & { job?: JobName } = {}): Promise<void> {
    if (!options.brokerage) {
      this.output.fail('resume needs --brokerage <id> (and optionally --job <job>)');
      return;
    }
    const resumed = await this.pauses.resume(options.brokerage, options.job);
    const what = options.job
      ? `${options.job} of brokerage ${options.brokerage}`
      : `brokerage ${options.brokerage}`;
    const still = (await this.pauses.list(options.brokerage)).map((p) => p.job ?? 'the whole brokerage');
    if (options.json) {
      this.output.json({
        brokerageId: options.brokerage,
        job: options.job ?? null,
        resumed,
        stillPaused: still,
      });
      return;
    }
    this.output.print(resumed ? `resumed ${what}` : `${what} was not paused`);
    if (still.length > 0) this.output.print(`still paused: ${still.join(', ')}`);
  }

  @Option({ flags: '-b, --brokerage <id>', description: 'the brokerage', required: true })
  parseBrokerage(value: string): string {
    return value;
  }

  @Option({ flags: '-j, --job <job>', description: 'only this job' })
  parseJob(value: string): JobName {
    return parseJob(value);
  }

  @Option({ flags: '--json', description: 'machine-readable output' })
  parseJson(): boolean {
    return true;
  }
}

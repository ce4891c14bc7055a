import { Command, CommandRunner, Option } from 'nest-commander';
import { ReceivedConfirmations } from '../../sync/outbox/received-confirmations';
import { CliOutput } from '../output/cli-output';
import { parseIds, type CommonOptions } from './cli-options';

interface ConfirmReceivedOptions extends CommonOptions {
  id?: number[];
}

// For a command of unknown outcome the daemon cannot settle on its own (nothing the service lists
// shows it): the operator checked the service, which holds the write, and says so. The daemon's
// next outbox drain finishes the command as answered with no body and shows it on the record. Never
// sends anything. Its counterpart, `replay --commands --unknown --confirm-absent`, sends it again.
@Command({
  name: 'confirm-received',
  description:
    'tell the daemon the service holds these commands of unknown outcome (you checked); finished by the next outbox drain, never sent again',
})
export class ConfirmReceivedCommand extends CommandRunner {
  constructor(
    private readonly confirmations: ReceivedConfirmations,
    private readonly output: CliOutput,
  ) {
    super();
  }

  async run(_params: string[], options: ConfirmReceivedOptions = {}): Promise<void> {
    if (options.id === undefined) {
      this.output.fail(
        'confirm-received needs --id <n>: the command(s) of unknown outcome you found in the service (cli errors lists them)',
      );
      return;
    }
    const outcomes = await this.confirmations.confirm(options.id, options.brokerage);
    if (outcomes.some((o) => !o.confirmed)) process.exitCode = 1;
    if (options.json) {
      this.output.json(outcomes);
      return;
    }
    for (const outcome of outcomes) {
      if (!outcome.confirmed) {
        this.output.error(`not confirmed: ${outcome.reason}`);
        continue;
      }
      this.output.print(
        `confirmed received: command ${outcome.id} (${outcome.operation} for ${outcome.recordRef}); ` +
          `the daemon's next outbox drain finishes it and shows it on the record, nothing is sent again ` +
          `(at once: cli sync --brokerage ${outcome.brokerageId} --job outbox-drain)`,
      );
    }
  }

  @Option({ flags: '--id <ids>', description: 'these command ids (repeat, or comma-separated)' })
  parseId(value: string, previous?: number[]): number[] {
    return parseIds(value, previous);
  }

  @Option({ flags: '-b, --brokerage <id>', description: 'only commands of this brokerage' })
  parseBrokerage(value: string): string {
    return value;
  }

  @Option({ flags: '--json', description: 'machine-readable output' })
  parseJson(): boolean {
    return true;
  }
}

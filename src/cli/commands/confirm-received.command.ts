import { Command, CommandRunner, Option } from 'nest-commander';
import { ReceivedConfirmations } from '../../sync/outbox/received-confirmations';
import { EvidenceLooks } from '../../sync/seller-requests/evidence-looks';
import { CliOutput } from '../output/cli-output';
import { parseIds, type CommonOptions } from './cli-options';

interface ConfirmReceivedOptions extends CommonOptions {
  id?: number[];
  request?: number;
}

// For a command of unknown outcome the daemon cannot settle on its own (nothing the service lists
// shows it): the operator checked the service, which holds the write, and says so. The daemon's
// next outbox drain finishes the command as answered with no body and shows it on the record. Never
// sends anything. Its counterpart, `replay --commands --unknown --confirm-absent`, sends it again.
// With `--request R`, for a create: the request the operator found it made, which the deal is linked
// to (where nothing the service lists names the deal).
@Command({
  name: 'confirm-received',
  description:
    'tell the daemon the service holds these commands of unknown outcome (you checked); finished by the next outbox drain, never sent again',
})
export class ConfirmReceivedCommand extends CommandRunner {
  constructor(
    private readonly confirmations: ReceivedConfirmations,
    private readonly looks: EvidenceLooks,
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
    if (options.request !== undefined) {
      await this.nameRequest(options.id, options.request, options);
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

  private async nameRequest(
    ids: number[],
    requestId: number,
    options: ConfirmReceivedOptions,
  ): Promise<void> {
    if (ids.length !== 1) {
      this.output.fail('confirm-received --request names the request of one create: give one --id');
      return;
    }
    const outcome = await this.looks.namedByOperator(ids[0], requestId, options.brokerage);
    if (!outcome.linked) process.exitCode = 1;
    if (options.json) {
      this.output.json({ id: ids[0], request: requestId, ...outcome });
      return;
    }
    if (!outcome.linked) {
      this.output.error(`not linked: ${outcome.reason}`);
      return;
    }
    this.output.print(
      `linked: deal ${outcome.dealId} to offer request ${requestId} (command ${ids[0]}); the daemon's next outbox drain finishes the create ` +
        `and writes the request id to the deal, nothing is sent again (at once: cli sync --brokerage ${outcome.brokerageId} --job outbox-drain)`,
    );
  }

  @Option({
    flags: '--request <id>',
    description: 'for one create_offer_request: the offer request you found it made in the service',
  })
  parseRequest(value: string): number {
    const id = Number(value);
    if (!Number.isSafeInteger(id) || id <= 0)
      throw new Error(`--request must be an offer request id (a whole number); got "${value}"`);
    return id;
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

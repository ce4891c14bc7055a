import { Command, CommandRunner, Option } from 'nest-commander';
import { ConfigService } from '../../config/config.service';
import { WebhookRegistrationService } from '../../webhooks/webhook-registration.service';
import { CliOutput } from '../output/cli-output';
import { renderTable } from '../output/table';
import type { CommonOptions } from './cli-options';
import { selectBrokerages } from './brokerage-selection';

// Tells the service each brokerage's webhook URL (POST /wh, or PATCH /wh when it changed), once
// something answers at that address: the brokerage's `register_webhook` outbox command, run at once
// and reported; a failure stays in the outbox for the daemon to retry. The URLs are printed with
// their secret masked.
@Command({ name: 'register-webhooks', description: "register each brokerage's webhook URL with the service" })
export class RegisterWebhooksCommand extends CommandRunner {
  constructor(
    private readonly registration: WebhookRegistrationService,
    private readonly config: ConfigService,
    private readonly output: CliOutput,
  ) {
    super();
  }

  async run(_params: string[], options: CommonOptions & { force?: boolean } = {}): Promise<void> {
    const reports = [];
    for (const brokerageId of selectBrokerages(this.config, options.brokerage)) {
      reports.push(
        await this.registration.register(brokerageId, { force: options.force, checkReachable: true }),
      );
    }
    if (options.json) this.output.json({ registrations: reports });
    else
      this.output.print(
        renderTable(
          ['BROKERAGE', 'OUTCOME', 'URL', { header: 'ERROR', wrap: 70 }],
          reports.map((r) => [r.brokerageId, r.outcome, r.url, r.error ?? '']),
        ),
      );
    if (reports.some((r) => r.outcome === 'failed')) process.exitCode = 1;
  }

  @Option({ flags: '-b, --brokerage <id>', description: 'only this brokerage (default: every enabled one)' })
  parseBrokerage(value: string): string {
    return value;
  }

  @Option({ flags: '--force', description: 'send the URL again even when the ledger says it is registered' })
  parseForce(): boolean {
    return true;
  }

  @Option({ flags: '--json', description: 'machine-readable output' })
  parseJson(): boolean {
    return true;
  }
}

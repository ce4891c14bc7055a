import { Command, CommandRunner, Option } from 'nest-commander';
import { CrmSetupService } from '../../brokerages/crm-setup.service';
import { ConfigService } from '../../config/config.service';
import type { CrmChangeSubscriptionReport, CrmSchemaReport } from '../../crm';
import { CliOutput } from '../output/cli-output';
import { renderTable } from '../output/table';
import type { CommonOptions } from './cli-options';
import { selectBrokerages, unreadyBrokerageMessages } from './brokerage-selection';

interface SetupResult {
  brokerageId: string;
  report?: CrmSchemaReport;
  // The CRM's change webhooks (Follow Up Boss), when the brokerage has them.
  webhooks?: CrmChangeSubscriptionReport;
  webhooksError?: string;
  error?: string;
}

// Creates what the flows need in each brokerage's CRM, once: running it again reports every item
// "already present"; then registers the CRM's change webhooks where there are any. One brokerage's
// failure does not stop the others.
@Command({
  name: 'setup-crm',
  description: 'create the CRM properties, pipelines and stages the flows use (idempotent)',
})
export class SetupCrmCommand extends CommandRunner {
  constructor(
    private readonly setup: CrmSetupService,
    private readonly config: ConfigService,
    private readonly output: CliOutput,
  ) {
    super();
  }

  async run(_params: string[], options: CommonOptions = {}): Promise<void> {
    const results: SetupResult[] = [];
    for (const brokerageId of selectBrokerages(this.config, options.brokerage)) {
      try {
        results.push({ brokerageId, report: await this.setup.setup(brokerageId) });
      } catch (error) {
        results.push({ brokerageId, error: message(error) });
        continue;
      }
      const result = results[results.length - 1];
      try {
        const webhooks = await this.setup.subscribeToChanges(brokerageId);
        if (webhooks) result.webhooks = webhooks;
      } catch (error) {
        result.webhooksError = message(error);
      }
    }
    if (options.json) this.output.json({ brokerages: results });
    else {
      for (const { brokerageId, report, error, webhooks, webhooksError } of results) {
        if (error) {
          this.output.error(`${brokerageId}: setup failed: ${error}`);
          continue;
        }
        const items = report!.items;
        const tally = (outcome: string) => items.filter((i) => i.outcome === outcome).length;
        this.output.print(
          `${brokerageId}: ${tally('created')} created, ${tally('updated')} updated, ${tally('already present')} already present`,
        );
        this.output.print(
          renderTable(
            ['ITEM', 'OUTCOME', { header: 'DETAIL', maxWidth: 60 }],
            items.map((i) => [i.item, i.outcome, i.detail ?? '']),
          ),
        );
        // The ids the CRM assigned: what an agent's automation, a report or a script filters on.
        this.output.print(`\n${brokerageId}: pipelines and stages`);
        this.output.print(
          renderTable(
            ['PIPELINE', 'PIPELINE ID', 'STAGE', 'STAGE ID'],
            Object.entries(report!.pipelines).flatMap(([pipelineKey, pipeline]) =>
              Object.entries(pipeline.stages).map(([stageKey, stageId]) => [
                pipelineKey,
                pipeline.id,
                stageKey,
                stageId,
              ]),
            ),
          ),
        );
        if (webhooks) {
          const count = (outcome: string) => webhooks.items.filter((i) => i.outcome === outcome).length;
          this.output.print(
            `\n${brokerageId}: change webhooks: ${count('created')} created, ${count('updated')} updated, ${count('already present')} already present`,
          );
        }
        if (webhooksError)
          this.output.error(
            `${brokerageId}: could not register the CRM's change webhooks: ${webhooksError} (crm-changes keeps polling; crm.changeWebhooks: false stops trying)`,
          );
      }
    }
    // Brokerages whose file did not load (a secret's variable unset, an invalid field) were not set
    // up: name them with the reason rather than end as if every brokerage were done.
    const unready = options.brokerage === undefined ? unreadyBrokerageMessages(this.config) : [];
    for (const line of unready) this.output.error(`${line}; not set up`);
    if (unready.length > 0 || results.some((r) => r.error || r.webhooksError)) process.exitCode = 1;
  }

  @Option({ flags: '-b, --brokerage <id>', description: 'only this brokerage (default: every enabled one)' })
  parseBrokerage(value: string): string {
    return value;
  }

  @Option({ flags: '--json', description: 'machine-readable output' })
  parseJson(): boolean {
    return true;
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

import { Command, CommandRunner, Option } from 'nest-commander';
import { CrmSetupService } from '../../brokerages/crm-setup.service';
import { ConfigService } from '../../config/config.service';
import type { CrmSchemaReport } from '../../crm';
import { CliOutput } from '../output/cli-output';
import { renderTable } from '../output/table';
import type { CommonOptions } from './cli-options';
import { selectBrokerages } from './brokerage-selection';

// Creates what the flows need in each brokerage's CRM, once: running it again reports every item
// "already present". One brokerage's failure does not stop the others.
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
    const results: { brokerageId: string; report?: CrmSchemaReport; error?: string }[] = [];
    for (const brokerageId of selectBrokerages(this.config, options.brokerage)) {
      try {
        results.push({ brokerageId, report: await this.setup.setup(brokerageId) });
      } catch (error) {
        results.push({ brokerageId, error: error instanceof Error ? error.message : String(error) });
      }
    }
    if (options.json) this.output.json({ brokerages: results });
    else {
      for (const { brokerageId, report, error } of results) {
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
      }
    }
    if (results.some((r) => r.error)) process.exitCode = 1;
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

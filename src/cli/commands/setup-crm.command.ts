import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Inject } from '@nestjs/common';
import { Command, CommandRunner, Option } from 'nest-commander';
import { CrmSetupService } from '../../brokerages/crm-setup.service';
import { crmWebhookUrl } from '../../brokerages/crm-webhook-url';
import {
  hubSpotWebhooksHsMeta,
  hubSpotWebhooksJson,
  hubSpotWebhookSubscriptions,
  type HubSpotWebhookSubscription,
} from '../../brokerages/hubspot-webhook-subscriptions';
import { ConfigService } from '../../config/config.service';
import { DAEMON_SETTINGS, type DaemonSettings } from '../../config/daemon-settings';
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
  // HubSpot: what its private app must subscribe to, and the files written for it.
  hubspotWebhooks?: HubSpotWebhookPlan;
  error?: string;
}

interface HubSpotWebhookPlan {
  targetUrl: string;
  subscriptions: HubSpotWebhookSubscription[];
  files: string[];
  // Why the daemon would refuse them as configured (no client secret, turned off), if it would.
  warning?: string;
}

interface SetupOptions extends CommonOptions {
  webhooksDir?: string;
}

// Beside the ledger file (data/ by default: the daemon's own, ignored by git).
const WEBHOOKS_SUBDIR = 'hubspot-webhooks';

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
    @Inject(DAEMON_SETTINGS) private readonly settings: DaemonSettings,
  ) {
    super();
  }

  async run(_params: string[], options: SetupOptions = {}): Promise<void> {
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
      try {
        const plan = this.hubSpotWebhookPlan(brokerageId, options.webhooksDir ?? this.defaultWebhooksDir());
        if (plan) result.hubspotWebhooks = plan;
      } catch (error) {
        result.webhooksError = `could not write the HubSpot webhooks files: ${message(error)}`;
      }
    }
    if (options.json) this.output.json({ brokerages: results });
    else {
      for (const { brokerageId, report, error, webhooks, webhooksError, hubspotWebhooks } of results) {
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
            ['ITEM', 'OUTCOME', { header: 'DETAIL', wrap: 60 }],
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
        if (hubspotWebhooks) this.printHubSpotWebhooks(brokerageId, hubspotWebhooks);
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

  // HubSpot's private apps cannot be subscribed through the API: the operator adds the subscriptions
  // in the app's settings, or deploys the project with the webhooks.json written here.
  private hubSpotWebhookPlan(brokerageId: string, dir: string): HubSpotWebhookPlan | undefined {
    const brokerage = this.config.get(brokerageId);
    if (!brokerage || brokerage.config.crm.kind !== 'hubspot') return undefined;
    if (brokerage.config.crm.changeWebhooks === false) return undefined;
    const folder = resolve(dir, brokerageId);
    mkdirSync(folder, { recursive: true });
    const files = [join(folder, 'webhooks.json'), join(folder, 'webhooks-hsmeta.json')];
    writeFileSync(files[0], `${JSON.stringify(hubSpotWebhooksJson(brokerage), null, 2)}\n`);
    writeFileSync(files[1], `${JSON.stringify(hubSpotWebhooksHsMeta(brokerage), null, 2)}\n`);
    return {
      targetUrl: crmWebhookUrl(brokerage),
      subscriptions: hubSpotWebhookSubscriptions(brokerage),
      files,
      ...(brokerage.secrets.crmClientSecret
        ? {}
        : {
            warning:
              'crm.clientSecretEnv (or crm.clientSecretFile) is not set: the daemon refuses HubSpot webhooks it cannot verify, and crm-changes keeps polling',
          }),
    };
  }

  private defaultWebhooksDir(): string {
    return join(this.settings.dataDir, WEBHOOKS_SUBDIR);
  }

  private printHubSpotWebhooks(brokerageId: string, plan: HubSpotWebhookPlan): void {
    this.output.print(
      `\n${brokerageId}: HubSpot webhooks: in the private app's Webhooks settings set the target URL to\n  ${plan.targetUrl}\nand add these subscriptions (or deploy the project with the webhooks.json below):`,
    );
    this.output.print(
      renderTable(
        ['OBJECT', 'EVENT', 'PROPERTY', 'TARGET URL'],
        plan.subscriptions.map((s) => [
          s.objectName,
          s.subscriptionType === 'object.creation' ? 'created' : 'property changed',
          s.propertyName ?? '',
          plan.targetUrl,
        ]),
      ),
    );
    this.output.print(
      `${brokerageId}: wrote ${plan.files[0]} (a project-based private app's webhooks.json) and ${plan.files[1]} (the newer developer platform's webhooks component)`,
    );
    if (plan.warning) this.output.error(`${brokerageId}: ${plan.warning}`);
  }

  @Option({
    flags: '--webhooks-dir <dir>',
    description: `HubSpot: where to write each brokerage's webhooks.json (default: ${WEBHOOKS_SUBDIR}/<brokerage>/ beside the ledger file)`,
  })
  parseWebhooksDir(value: string): string {
    return value;
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

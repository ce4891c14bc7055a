import { Inject } from '@nestjs/common';
import { Command, CommandRunner, Option } from 'nest-commander';
import { CrmOnlineCheck, type CrmOnlineFindings } from '../../brokerages/crm-online.check';
import { Clock } from '../../common/clock';
import { formatProblem } from '../../config/config-error';
import { ConfigService } from '../../config/config.service';
import { DAEMON_SETTINGS, type DaemonSettings } from '../../config/daemon-settings';
import { CliOutput } from '../output/cli-output';
import {
  DEFAULT_WEBHOOK_SILENCE_HOURS,
  hubSpotWebhookSilences,
  type WebhookSilence,
} from './hubspot-webhook-silence.check';

// Checks every brokerage file (and the secrets they name) without starting anything. Exit code 1 and
// every problem when anything is wrong. With --online it also asks the CRM of each enabled brokerage
// that loads whether the token has the permissions the flows need, naming any missing scope, and
// whether the listing pipeline, trigger stage and trigger property the file names exist there; and
// warns (exit code unchanged) of a trigger property setup-crm has yet to create, and of a brokerage
// taking HubSpot webhooks that has received none for a while.
@Command({
  name: 'validate-config',
  description: 'check the brokerage config files without starting the daemon',
})
export class ValidateConfigCommand extends CommandRunner {
  constructor(
    private readonly config: ConfigService,
    private readonly output: CliOutput,
    private readonly crm: CrmOnlineCheck,
    @Inject(DAEMON_SETTINGS) private readonly settings: DaemonSettings,
    private readonly clock: Clock,
  ) {
    super();
  }

  async run(
    _params: string[],
    options: { json?: boolean; online?: boolean; webhookSilenceHours?: number } = {},
  ): Promise<void> {
    const problems = this.config.currentProblems();
    const brokerages = this.config.brokerages().map((b) => ({
      id: b.id,
      file: b.file,
      enabled: b.config.enabled !== false,
      simulated: b.config.simulated === true,
    }));
    // The brokerages that loaded are checked online even when others did not: every problem in one run.
    const { problems: online, warnings: crmWarnings } = options.online
      ? await this.checkOnline(brokerages)
      : { problems: [], warnings: [] };
    const silences: WebhookSilence[] =
      options.online && problems.length === 0
        ? await hubSpotWebhookSilences(
            this.config.brokerages(),
            this.settings,
            this.clock,
            options.webhookSilenceHours ?? DEFAULT_WEBHOOK_SILENCE_HOURS,
          ).catch((error: unknown) => [
            {
              brokerageId: '*',
              lastReceivedAt: null,
              warning: `could not read the ledger for HubSpot webhook arrivals: ${error instanceof Error ? error.message : String(error)}`,
            },
          ])
        : [];
    if (options.json) {
      this.output.json({
        valid: problems.length === 0 && online.length === 0,
        configDir: this.config.configDir,
        brokerages,
        problems,
        ...(options.online ? { online, warnings: [...crmWarnings, ...silences] } : {}),
      });
    } else if (problems.length === 0 && online.length === 0) {
      this.output.print(
        `config OK: ${brokerages.length} brokerage(s) in ${this.config.configDir}` +
          brokerages
            .map(
              (b) =>
                `\n  ${b.id} (${b.file})${b.enabled ? '' : ' [disabled]'}${
                  // `npm run cli` fills a simulated brokerage's secrets, as `npm start` does; the daemon
                  // alone (start:daemon, deploy/) refuses it, so say so before the first start does.
                  b.simulated && b.enabled
                    ? ' [simulated: only npm start runs it; remove it for a real deployment]'
                    : ''
                }`,
            )
            .join(''),
      );
    } else {
      if (problems.length > 0) {
        this.output.error(`config has ${problems.length} problem(s):`);
        for (const problem of problems) this.output.error(`  - ${formatProblem(problem)}`);
      }
      if (online.length > 0) {
        this.output.error(`the CRMs found ${online.length} problem(s):`);
        for (const o of online)
          this.output.error(
            `  - ${formatProblem({ file: o.file, brokerageId: o.brokerageId, message: o.problem })}`,
          );
      }
    }
    if (!options.json) {
      for (const w of crmWarnings)
        this.output.error(
          `warning: ${formatProblem({ file: w.file, brokerageId: w.brokerageId, message: w.warning })}`,
        );
      for (const s of silences) this.output.error(`warning: ${s.brokerageId}: ${s.warning}`);
    }
    if (problems.length > 0 || online.length > 0) process.exitCode = 1;
  }

  private async checkOnline(brokerages: { id: string; enabled: boolean }[]): Promise<CrmOnlineFindings> {
    const found: CrmOnlineFindings = { problems: [], warnings: [] };
    for (const { id, enabled } of brokerages) {
      const brokerage = this.config.get(id);
      if (!enabled || !brokerage) continue;
      const { problems, warnings } = await this.crm.check(brokerage);
      found.problems.push(...problems);
      found.warnings.push(...warnings);
    }
    return found;
  }

  @Option({
    flags: '--online',
    description:
      "also ask each brokerage's CRM whether its token has the scopes it needs and its pipeline, stage and trigger property exist",
  })
  parseOnline(): boolean {
    return true;
  }

  @Option({
    flags: '--webhook-silence-hours <hours>',
    description: `with --online: warn when a brokerage taking HubSpot webhooks has had none for this long (default ${DEFAULT_WEBHOOK_SILENCE_HOURS})`,
  })
  parseWebhookSilenceHours(value: string): number {
    const hours = Number(value);
    if (!Number.isFinite(hours) || hours <= 0)
      throw new Error('--webhook-silence-hours must be a positive number');
    return hours;
  }

  @Option({ flags: '--json', description: 'machine-readable output' })
  parseJson(): boolean {
    return true;
  }
}

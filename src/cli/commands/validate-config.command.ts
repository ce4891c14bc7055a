import { Command, CommandRunner, Option } from 'nest-commander';
import { CrmPortFactory } from '../../brokerages/crm-port.factory';
import { formatProblem } from '../../config/config-error';
import { ConfigService } from '../../config/config.service';
import { CliOutput } from '../output/cli-output';

// Checks every brokerage file (and the secrets they name) without starting anything. Exit code 1 and
// every problem when anything is wrong. With --online it also asks each enabled brokerage's CRM
// whether the token has the permissions the flows need, naming any missing scope.
@Command({
  name: 'validate-config',
  description: 'check the brokerage config files without starting the daemon',
})
export class ValidateConfigCommand extends CommandRunner {
  constructor(
    private readonly config: ConfigService,
    private readonly output: CliOutput,
    private readonly crm: CrmPortFactory,
  ) {
    super();
  }

  async run(_params: string[], options: { json?: boolean; online?: boolean } = {}): Promise<void> {
    const problems = this.config.currentProblems();
    const brokerages = this.config
      .brokerages()
      .map((b) => ({ id: b.id, file: b.file, enabled: b.config.enabled !== false }));
    const online = options.online && problems.length === 0 ? await this.checkOnline(brokerages) : [];
    if (options.json) {
      this.output.json({
        valid: problems.length === 0 && online.length === 0,
        configDir: this.config.configDir,
        brokerages,
        problems,
        ...(options.online ? { online } : {}),
      });
    } else if (online.length > 0) {
      this.output.error(`CRM access has ${online.length} problem(s):`);
      for (const o of online) this.output.error(`  - ${o.brokerageId}: ${o.problem}`);
    } else if (problems.length === 0) {
      this.output.print(
        `config OK: ${brokerages.length} brokerage(s) in ${this.config.configDir}` +
          brokerages.map((b) => `\n  ${b.id} (${b.file})${b.enabled ? '' : ' [disabled]'}`).join(''),
      );
    } else {
      this.output.error(`config has ${problems.length} problem(s):`);
      for (const problem of problems) this.output.error(`  - ${formatProblem(problem)}`);
    }
    if (problems.length > 0 || online.length > 0) process.exitCode = 1;
  }

  private async checkOnline(
    brokerages: { id: string; enabled: boolean }[],
  ): Promise<{ brokerageId: string; problem: string; missingScopes?: string[] }[]> {
    const found: { brokerageId: string; problem: string; missingScopes?: string[] }[] = [];
    for (const { id, enabled } of brokerages) {
      const brokerage = this.config.get(id);
      if (!enabled || !brokerage) continue;
      try {
        const report = await this.crm.create(brokerage).checkAccess();
        if (report.missing.length > 0) {
          found.push({
            brokerageId: id,
            problem: `the CRM token lacks scope ${report.missing.join(', ')}`,
            missingScopes: report.missing,
          });
        } else if (report.problem && report.checked) {
          found.push({ brokerageId: id, problem: report.problem });
        }
      } catch (error) {
        found.push({ brokerageId: id, problem: error instanceof Error ? error.message : String(error) });
      }
    }
    return found;
  }

  @Option({
    flags: '--online',
    description: "also ask each brokerage's CRM whether its token has the scopes it needs",
  })
  parseOnline(): boolean {
    return true;
  }

  @Option({ flags: '--json', description: 'machine-readable output' })
  parseJson(): boolean {
    return true;
  }
}

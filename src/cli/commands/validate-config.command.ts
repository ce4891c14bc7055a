import { Command, CommandRunner, Option } from 'nest-commander';
import { formatProblem } from '../../config/config-error';
import { ConfigService } from '../../config/config.service';
import { CliOutput } from '../output/cli-output';

// Checks every brokerage file (and the secrets they name) without starting anything. Exit code 1 and
// every problem when anything is wrong.
@Command({
  name: 'validate-config',
  description: 'check the brokerage config files without starting the daemon',
})
export class ValidateConfigCommand extends CommandRunner {
  constructor(
    private readonly config: ConfigService,
    private readonly output: CliOutput,
  ) {
    super();
  }

  async run(_params: string[], options: { json?: boolean } = {}): Promise<void> {
    const problems = this.config.currentProblems();
    const brokerages = this.config
      .brokerages()
      .map((b) => ({ id: b.id, file: b.file, enabled: b.config.enabled !== false }));
    if (options.json) {
      this.output.json({
        valid: problems.length === 0,
        configDir: this.config.configDir,
        brokerages,
        problems,
      });
    } else if (problems.length === 0) {
      this.output.print(
        `config OK: ${brokerages.length} brokerage(s) in ${this.config.configDir}` +
          brokerages.map((b) => `\n  ${b.id} (${b.file})${b.enabled ? '' : ' [disabled]'}`).join(''),
      );
    } else {
      this.output.error(`config has ${problems.length} problem(s):`);
      for (const problem of problems) this.output.error(`  - ${formatProblem(problem)}`);
    }
    if (problems.length > 0) process.exitCode = 1;
  }

  @Option({ flags: '--json', description: 'machine-readable output' })
  parseJson(): boolean {
    return true;
  }
}

import { Inject } from '@nestjs/common';
import { Command, CommandRunner, Option } from 'nest-commander';
import { readPidFile, pidFilePath } from '../../app/daemon-pid.file';
import { DAEMON_SETTINGS } from '../../config/config.module';
import { formatProblem } from '../../config/config-error';
import { ConfigService } from '../../config/config.service';
import type { DaemonSettings } from '../../config/daemon-settings';
import { CliOutput } from '../output/cli-output';

// Asks the running daemon to reload its brokerage files (SIGHUP through its pid file), after checking
// them here first so the operator sees any problem at once.
@Command({
  name: 'reload-config',
  description: 'validate the config, then make the running daemon reload it',
})
export class ReloadConfigCommand extends CommandRunner {
  constructor(
    private readonly config: ConfigService,
    @Inject(DAEMON_SETTINGS) private readonly settings: DaemonSettings,
    private readonly output: CliOutput,
  ) {
    super();
  }

  async run(_params: string[], options: { json?: boolean } = {}): Promise<void> {
    const problems = this.config.currentProblems();
    const pid = readPidFile(this.settings.ledgerPath);
    const report = (signalled: boolean, message: string): void => {
      if (options.json) this.output.json({ signalled, pid: pid ?? null, problems });
      else if (signalled) this.output.print(message);
      else this.output.fail(message);
      if (!signalled) process.exitCode = 1;
    };
    if (problems.length > 0) {
      return report(
        false,
        `not reloading; the config has ${problems.length} problem(s):\n${problems.map((p) => `  - ${formatProblem(p)}`).join('\n')}`,
      );
    }
    if (pid === undefined)
      return report(false, `no running daemon found (no pid in ${pidFilePath(this.settings.ledgerPath)})`);
    try {
      process.kill(pid, 'SIGHUP');
    } catch (error) {
      return report(
        false,
        `could not signal daemon pid ${pid}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    report(
      true,
      `asked daemon pid ${pid} to reload ${this.config.brokerages().length} brokerage(s); see its log for the outcome`,
    );
  }

  @Option({ flags: '--json', description: 'machine-readable output' })
  parseJson(): boolean {
    return true;
  }
}

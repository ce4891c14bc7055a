import { Inject } from '@nestjs/common';
import { Command, CommandRunner, Option } from 'nest-commander';
import { readPidFile, pidFilePath } from '../../app/daemon-pid.file';
import { readReloadVerdict, type ReloadVerdict } from '../../app/reload-verdict.file';
import { DAEMON_SETTINGS } from '../../config/config.module';
import { formatProblem } from '../../config/config-error';
import { ConfigService } from '../../config/config.service';
import type { DaemonSettings } from '../../config/daemon-settings';
import { CliOutput } from '../output/cli-output';

const DEFAULT_TIMEOUT_S = 15;
const POLL_MS = 100;

// Asks the running daemon to reload its brokerage files (SIGHUP through its pid file), and reports
// the daemon's own verdict: the daemon judges with its environment, not this shell's. The files are
// checked here first, so a problem of the file itself (which the daemon would refuse too) is said at
// once and nothing is sent; what this shell cannot check (a variable set only for the daemon, a
// secret file only it can read) does not stop the reload: it is said, and left to the daemon.
@Command({
  name: 'reload-config',
  description: "validate the config, make the running daemon reload it, and report the daemon's verdict",
})
export class ReloadConfigCommand extends CommandRunner {
  constructor(
    private readonly config: ConfigService,
    @Inject(DAEMON_SETTINGS) private readonly settings: DaemonSettings,
    private readonly output: CliOutput,
  ) {
    super();
  }

  async run(_params: string[], options: { json?: boolean; timeout?: number } = {}): Promise<void> {
    const local = this.config.currentProblems();
    const problems = local.filter((p) => p.hereOnly === undefined).map(formatProblem);
    // Checks this shell could not make for want of the daemon's environment.
    const unchecked = [
      ...new Set(
        local
          .filter((p) => p.hereOnly !== undefined)
          .map((p) => formatProblem({ file: p.file, brokerageId: p.brokerageId, message: p.hereOnly ?? '' })),
      ),
    ];
    const uncheckedNote =
      unchecked.length === 0
        ? []
        : [
            `this shell could not check ${unchecked.length} thing(s) the daemon judges with its own environment:`,
            ...unchecked.map((u) => `  - ${u}`),
          ];
    const pid = readPidFile(this.settings.ledgerPath);
    const report = (ok: boolean, message: string, verdict?: ReloadVerdict): void => {
      const allProblems = verdict?.problems ?? problems;
      if (options.json)
        this.output.json({ ok, pid: pid ?? null, message, problems: allProblems, notCheckedHere: unchecked });
      else if (ok) this.output.print(message);
      else this.output.fail([message, ...allProblems.map((p) => `  - ${p}`)].join('\n'));
      if (!ok) process.exitCode = 1;
    };
    // Said first, whatever the verdict: these checks are the daemon's alone.
    if (!options.json && uncheckedNote.length > 0) this.output.error(uncheckedNote.join('\n'));
    if (problems.length > 0)
      return report(
        false,
        `not reloading; the config has ${problems.length} problem(s) the daemon would refuse too:`,
      );
    if (this.settings.ledgerUrl)
      return report(
        false,
        'the config checks out; on PostgreSQL (LEDGER_URL) each worker reloads on its own SIGHUP: ' +
          "systemctl reload 'cash-offer-sync-worker@*' (or kill -HUP each worker's pid)",
      );
    if (pid === undefined)
      return report(false, `no running daemon found (no pid in ${pidFilePath(this.settings.ledgerPath)})`);
    const before = readReloadVerdict(this.settings.ledgerPath)?.id;
    try {
      process.kill(pid, 'SIGHUP');
    } catch (error) {
      return report(
        false,
        `could not signal daemon pid ${pid}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    const timeoutS = options.timeout ?? DEFAULT_TIMEOUT_S;
    const verdict = await this.awaitVerdict(pid, before, timeoutS * 1000);
    if (!verdict)
      return report(
        false,
        `daemon pid ${pid} did not report the outcome of the reload within ${timeoutS} s; see its log`,
      );
    report(verdict.ok, `daemon pid ${pid}: ${verdict.message}`, verdict);
  }

  // The first verdict from that daemon other than the one present before the signal.
  private async awaitVerdict(
    pid: number,
    before: string | undefined,
    timeoutMs: number,
  ): Promise<ReloadVerdict | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const verdict = readReloadVerdict(this.settings.ledgerPath);
      if (verdict && verdict.id !== before && verdict.pid === pid) return verdict;
      if (Date.now() > deadline) return undefined;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }

  @Option({
    flags: '--timeout <seconds>',
    description: `how long to wait for the daemon's verdict (default ${DEFAULT_TIMEOUT_S})`,
  })
  parseTimeout(value: string): number {
    const seconds = Number(value);
    if (!Number.isInteger(seconds) || seconds < 1 || seconds > 600)
      throw new Error(`--timeout must be a whole number of seconds from 1 to 600, got "${value}"`);
    return seconds;
  }

  @Option({ flags: '--json', description: 'machine-readable output' })
  parseJson(): boolean {
    return true;
  }
}

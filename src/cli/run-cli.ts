import { CommandFactory, CommandRunnerService } from 'nest-commander';
import { buildAppParts, onLedger } from '../app/app.bootstrap';
import { CliModule } from './cli.module';
import { CONFIG_COMMAND_NAMES, LEDGER_COMMAND_NAMES } from './commands';
import { ledgerPresence } from './ledger-presence';
import { exitQuietlyOnBrokenPipe } from './output/cli-output';
import { ConfigInvalidError } from '../config/config-error';
import { IN_MEMORY_LEDGER } from '../config/daemon-settings';
import type { SettingsExtension } from '../app/daemon-extension';

const CLI_NAME = 'cash-offer-sync';

// The operator's CLI: same modules and settings as the daemon, with the entry point's settings
// extensions (the embedded demo's, for `npm run cli`); logs go to stderr (warn and above unless
// LOG_LEVEL says otherwise) so stdout stays clean for --json.
export function runCli(extensions: SettingsExtension[]): void {
  main(extensions).catch((error: unknown) => {
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}

async function main(extensions: SettingsExtension[]): Promise<void> {
  exitQuietlyOnBrokenPipe();
  let parts;
  try {
    parts = buildAppParts({
      env: process.env,
      strict: false,
      logDestination: 2,
      defaults: { LOG_LEVEL: 'warn' },
      extensions,
    });
  } catch (error) {
    if (error instanceof ConfigInvalidError) {
      process.stderr.write(`${error.message}\n`);
      process.exitCode = 1;
      return;
    }
    throw error;
  }
  const command = process.argv[2] ?? '';
  const ledger = !CONFIG_COMMAND_NAMES.includes(command);
  // A PostgreSQL ledger (LEDGER_URL) is named explicitly and shared by the workers: nothing to guess.
  if (ledger && !parts.settings.ledgerUrl) {
    const presence = ledgerPresence(parts.settings.ledgerPath, process.argv.slice(2), LEDGER_COMMAND_NAMES);
    if (presence.use === 'none') {
      process.stderr.write(`${presence.problem}\n`);
      process.exitCode = 1;
      return;
    }
    if (presence.use === 'memory') parts = onLedger(parts, IN_MEMORY_LEDGER);
  }
  const app = await CommandFactory.createWithoutRunning(CliModule.forRoot(parts, { ledger }), {
    logger: parts.logger,
    cliName: CLI_NAME,
    serviceErrorHandler: (error: Error) => {
      process.stderr.write(`error: ${error.message}\n`);
      process.exitCode = 1;
    },
  });
  // Ctrl-C or SIGTERM during a long command (sync --once): abort the run at its next page boundary,
  // record it as interrupted, close the ledger, then die of the signal as a CLI should.
  app.enableShutdownHooks(['SIGINT', 'SIGTERM']);
  try {
    // commander names the program after the script it was given (argv[1]); the bundles are
    // cli.js and embedded-cli.js, and an operator should read one name in every usage line.
    await app.get(CommandRunnerService).run([process.argv[0], CLI_NAME, ...process.argv.slice(2)]);
  } finally {
    await app.close();
  }
}

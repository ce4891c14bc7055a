import { startDaemon } from './daemon';
import type { DaemonExtension } from './daemon-extension';
import { describeStartupError } from './startup-error';
import { ConfigInvalidError } from '../config/config-error';
import { readDaemonSettings } from '../config/daemon-settings';

// A daemon entry point's whole life: settings from the environment (docs/operations.md), one file per
// brokerage in CONFIG_DIR, and the entry's extensions composed in. Exits 1 with every problem on
// stderr when the environment or a config file is bad.
export function runDaemon(extensions: DaemonExtension[]): void {
  startDaemon({ env: process.env, extensions }).catch((error: unknown) => {
    if (error instanceof ConfigInvalidError) {
      process.stderr.write(`cash-offer-sync will not start: ${error.message}\n`);
    } else {
      // One paragraph naming the setting to change; the stack only for whoever asked for debug logs.
      process.stderr.write(
        `cash-offer-sync failed to start: ${describeStartupError(error, settingsOrNothing())}\n`,
      );
      if (
        ['debug', 'trace'].includes(settingsOrNothing()?.logLevel ?? '') &&
        error instanceof Error &&
        error.stack
      )
        process.stderr.write(`${error.stack}\n`);
    }
    process.exit(1);
  });
}

function settingsOrNothing() {
  try {
    return readDaemonSettings(process.env);
  } catch {
    return undefined;
  }
}

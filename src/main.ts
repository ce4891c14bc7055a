import 'reflect-metadata';
import { startDaemon } from './app/daemon';
import { embeddedDemo } from './app/embedded/embedded-demo.extension';
import { describeStartupError } from './app/startup-error';
import { ConfigInvalidError } from './config/config-error';
import { readDaemonSettings } from './config/daemon-settings';

// The daemon: `npm start`. Settings from the environment (docs/operations.md), one file per brokerage
// in CONFIG_DIR. Exits 1 with every problem on stderr when the environment or a config file is bad.
// Composed with the embedded demo, which starts the bundled simulators for `simulated: true`
// brokerages and does nothing for the others.
startDaemon({ env: process.env, extensions: [embeddedDemo(process.env)] }).catch((error: unknown) => {
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

function settingsOrNothing() {
  try {
    return readDaemonSettings(process.env);
  } catch {
    return undefined;
  }
}

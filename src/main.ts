import 'reflect-metadata';
import { startDaemon } from './app/daemon';
import { ConfigInvalidError } from './config/config-error';

// The daemon: `npm start`. Settings from the environment (docs/operations.md), one file per brokerage
// in CONFIG_DIR. Exits 1 with every problem on stderr when the environment or a config file is bad.
startDaemon({ env: process.env }).catch((error: unknown) => {
  if (error instanceof ConfigInvalidError) {
    process.stderr.write(`cash-offer-sync will not start: ${error.message}\n`);
  } else {
    process.stderr.write(
      `cash-offer-sync failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
  }
  process.exit(1);
});

import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { ConfigService } from '../config/config.service';
import { readDaemonSettings } from '../config/daemon-settings';
import type { Environment } from '../config/brokerage-secrets';
import type { DestinationStream } from 'pino';
import { PinoLoggerService } from '../ops/logging/pino-logger.service';
import { SecretRedactor } from '../ops/logging/secret-redactor';
import type { AppParts } from './app.module';
import { ledgerPathFor } from './embedded/embedded-simulators';
import { withSimulatorDefaults } from './embedded/simulated-env';

// Settings, redactor, logger and config, built before Nest so that a bad environment or config file
// stops the process with every problem named, and boot logs are already redacted.
// Throws ConfigInvalidError when `strict` and anything is wrong.
export function buildAppParts(options: {
  env: Environment;
  strict: boolean;
  logDestination?: DestinationStream | number;
  logLevel?: string;
}): AppParts {
  const configured = readDaemonSettings(options.env);
  const env = withSimulatorDefaults(configured.configDir, options.env);
  const redactor = new SecretRedactor();
  const logger = new PinoLoggerService({
    level: options.logLevel ?? configured.logLevel,
    redactor,
    destination: options.logDestination,
  });
  const config = new ConfigService(configured.configDir, redactor, env);
  config.load(options.strict);
  // A demo gets its own ledger file, so its reset at start can never reach the operator's ledger.
  const settings = {
    ...configured,
    ledgerPath: ledgerPathFor(config.brokerages(), options.env, configured.ledgerPath),
  };
  mkdirSync(dirname(settings.ledgerPath), { recursive: true });
  return { settings, config, redactor, logger };
}

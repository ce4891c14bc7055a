import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { ConfigService } from '../config/config.service';
import { readDaemonSettings } from '../config/daemon-settings';
import type { Environment } from '../config/brokerage-secrets';
import type { DestinationStream } from 'pino';
import { PinoLoggerService } from '../ops/logging/pino-logger.service';
import { SecretRedactor } from '../ops/logging/secret-redactor';
import type { AppParts } from './app.module';
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
  const settings = readDaemonSettings(options.env);
  const env = withSimulatorDefaults(settings.configDir, options.env);
  const redactor = new SecretRedactor();
  const logger = new PinoLoggerService({
    level: options.logLevel ?? settings.logLevel,
    redactor,
    destination: options.logDestination,
  });
  const config = new ConfigService(settings.configDir, redactor, env);
  config.load(options.strict);
  mkdirSync(dirname(settings.ledgerPath), { recursive: true });
  return { settings, config, redactor, logger };
}

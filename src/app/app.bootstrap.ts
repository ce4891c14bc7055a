import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { ConfigService } from '../config/config.service';
import { readDaemonSettings, type ReadSettingsOptions } from '../config/daemon-settings';
import type { Environment } from '../config/brokerage-secrets';
import type { DestinationStream } from 'pino';
import { PinoLoggerService } from '../observability/logging/pino-logger.service';
import { SecretRedactor } from '../observability/logging/secret-redactor';
import type { AppParts } from './app.module';
import type { SettingsExtension } from './daemon-extension';

// Settings, redactor, logger and config, built before Nest so that a bad environment or config file
// stops the process with every problem named, and boot logs are already redacted.
// Throws ConfigInvalidError when the environment is bad, or when `strict` and a config file is.
export function buildAppParts(options: {
  env: Environment;
  strict: boolean;
  logDestination?: DestinationStream | number;
  // An entry point's own defaults for some variables (the CLI logs at warn).
  defaults?: ReadSettingsOptions['defaults'];
  // The entry point's additions to the environment and the ledger's place (the embedded demo's).
  extensions?: SettingsExtension[];
}): AppParts {
  const extensions = options.extensions ?? [];
  const configured = readDaemonSettings(options.env, { defaults: options.defaults });
  const env = extensions.reduce(
    (current, extension) => extension.environment?.(configured.configDir, current) ?? current,
    options.env,
  );
  const redactor = new SecretRedactor();
  const logger = new PinoLoggerService({
    level: configured.logLevel,
    redactor,
    destination: options.logDestination,
  });
  const config = new ConfigService(configured.configDir, redactor, env);
  config.load(options.strict);
  const ledgerPath = extensions.reduce(
    (current, extension) => extension.ledgerPath?.(config.brokerages(), options.env, current) ?? current,
    configured.ledgerPath,
  );
  const source = { env: options.env, defaults: options.defaults, ledgerPath };
  const parts = {
    settings: readDaemonSettings(source.env, source),
    settingsSource: source,
    config,
    redactor,
    logger,
  };
  // Only a SQLite ledger has a directory: on PostgreSQL a worker runs in the release's directory,
  // read-only under its systemd unit, where a `data/` made for nothing stopped the start (EACCES).
  if (!parts.settings.ledgerUrl) mkdirSync(dirname(parts.settings.ledgerPath), { recursive: true });
  return parts;
}

// The same parts on another ledger (the CLI's in-memory one for a dry run), in Nest's settings too.
export function onLedger(parts: AppParts, ledgerPath: string): AppParts {
  const settingsSource = { ...parts.settingsSource, ledgerPath };
  return { ...parts, settings: readDaemonSettings(settingsSource.env, settingsSource), settingsSource };
}

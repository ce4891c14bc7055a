import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from './app/app.module';
import { buildAppParts } from './app/app.bootstrap';
import { ConfigInvalidError } from './config/config-error';
import { ConfigService } from './config/config.service';

// The daemon: `npm start`. Settings from the environment (docs/operations.md), one file per brokerage
// in CONFIG_DIR. Exits 1 with every problem on stderr when the environment or a config file is bad.
async function main(): Promise<void> {
  let parts;
  try {
    parts = buildAppParts({ env: process.env, strict: true });
  } catch (error) {
    if (error instanceof ConfigInvalidError) {
      process.stderr.write(`cash-offer-sync will not start: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const { settings, config, logger } = parts;
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(parts), {
    logger,
    abortOnError: false,
  });
  // SIGHUP is a reload, not a shutdown, so only these two stop the daemon.
  app.enableShutdownHooks(['SIGTERM', 'SIGINT'], { useProcessExit: true });
  const log = new Logger('Daemon');
  process.on('SIGHUP', () => {
    log.log('SIGHUP: reloading brokerage config');
    app
      .get(ConfigService)
      .reload()
      .catch((error: unknown) => log.error(`config reload failed: ${String(error)}`));
  });
  await app.listen(settings.httpPort, settings.httpHost);
  log.log(
    `listening on http://${settings.httpHost}:${settings.httpPort} with ${config.brokerages().length} brokerage(s) from ${settings.configDir}; ledger ${settings.ledgerPath}`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(
    `cash-offer-sync failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});

import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { AddressInfo } from 'node:net';
import type { Environment } from '../config/brokerage-secrets';
import { ConfigService } from '../config/config.service';
import { configureHttpBodyParsing } from '../webhooks/webhook-body';
import { buildAppParts } from './app.bootstrap';
import { AppModule, type AppParts, type PluginModules } from './app.module';
import type { SecretRedactor } from '../observability/logging/secret-redactor';
import { claimPidFile } from './daemon-pid.file';
import { verdictOf, writeReloadVerdict } from './reload-verdict.file';
import { AdminAccess } from '../ops/admin-access/admin-access.service';
import { keepWebhooksOffAdmin, WebhookListener } from './http-listeners';
import { heapLimitAdvice } from './heap-limit.advice';
import { logStopSignals } from './lifecycle.logger';
import { routeCronWarnings } from '../scheduler/cron-warnings.bridge';
import type { DaemonExtension } from './daemon-extension';
import { collectProcessMetrics } from '../observability/metrics/process-metrics';

export interface StartDaemonOptions {
  env: Environment;
  // Runs after the modules are built and before they start (cron is scheduled at start), e.g. to
  // register job handlers from outside the module graph.
  beforeStart?: (app: NestExpressApplication) => void | Promise<void>;
  // Defaults to FLOW_MODULES and DAEMON_ONLY_MODULES (src/app/flow-modules.ts).
  plugins?: PluginModules;
  // What the entry point composes in around the start (embedded/main.ts: the demo).
  extensions?: DaemonExtension[];
}

// Builds and starts the daemon: admin HTTP on ADMIN_HOST:ADMIN_PORT, webhooks on
// WEBHOOK_HOST:WEBHOOK_PORT, cron, SIGHUP reload, graceful SIGTERM.
// Throws ConfigInvalidError (before anything starts) when the environment or a config file is bad.
export async function startDaemon(options: StartDaemonOptions): Promise<NestExpressApplication> {
  const parts = buildAppParts({ env: options.env, strict: true, extensions: options.extensions });
  // One daemon per SQLite ledger: a second one would mark the first one's running jobs interrupted
  // at start. A PostgreSQL ledger is shared by design (pg-boss keeps the workers apart).
  if (!parts.settings.ledgerUrl) claimPidFile(parts.settings.ledgerPath);
  try {
    return await start(parts, options);
  } catch (error) {
    // Whatever failed may quote a key or a webhook URL; main.ts prints this to stderr.
    throw redactedError(error, parts.redactor);
  }
}

async function start(parts: AppParts, options: StartDaemonOptions): Promise<NestExpressApplication> {
  const { settings, config, logger } = parts;
  // Everything logged through Nest's Logger, the embedded simulators included, goes to pino from here.
  Logger.overrideLogger(logger);
  routeCronWarnings(logger);
  collectProcessMetrics();
  const extensions = options.extensions ?? [];
  for (const extension of extensions) await extension.beforeCreate?.(parts);
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(parts, options.plugins), {
    logger,
    abortOnError: false,
    // Webhook routes need their raw bytes (see configureHttpBodyParsing).
    bodyParser: false,
  });
  keepWebhooksOffAdmin(app);
  // Before every admin route: its own host names, a credential when set, same-origin posts.
  const access = app.get(AdminAccess);
  access.token.current(); // a missing or short ADMIN_TOKEN_FILE stops the start here, naming it
  app.use(access.gate);
  configureHttpBodyParsing(app);
  // SIGHUP is a reload, not a shutdown, so only these two stop the daemon (exit code 0 once drained).
  app.enableShutdownHooks(['SIGTERM', 'SIGINT'], { useProcessExit: true });
  logStopSignals(settings.shutdownTimeoutMs);
  const log = new Logger('Daemon');
  process.on('SIGHUP', () => {
    log.log('SIGHUP: reloading brokerage config');
    app
      .get(ConfigService)
      .reload()
      .catch((error: unknown) => {
        log.error(`config reload failed: ${String(error)}`);
        return error instanceof Error ? error : new Error(String(error));
      })
      // The verdict `cli reload-config` waits for, beside a SQLite ledger and its pid file (on
      // PostgreSQL there is neither: each worker is reloaded by its supervisor).
      .then((outcome) => {
        if (!settings.ledgerUrl) writeReloadVerdict(settings.ledgerPath, verdictOf(outcome));
      })
      .catch((error: unknown) => log.error(`could not write the reload verdict: ${String(error)}`));
  });
  await options.beforeStart?.(app);
  for (const extension of extensions) await extension.beforeListen?.(app, parts);
  await app.listen(settings.adminPort, settings.adminHost);
  const adminAddress = app.getHttpServer().address() as AddressInfo;
  const webhookPort = await app
    .get(WebhookListener)
    .listen(app.getHttpAdapter().getInstance(), settings.webhookPort, settings.webhookHost);
  // Before "listening on", which is what supervisors and tests wait for.
  const advice = heapLimitAdvice();
  if (advice) log.warn(advice);
  log.log(
    `listening on http://${settings.adminHost}:${adminAddress.port} (admin: health, metrics, console${access.token.required ? '; token required' : ''}) and http://${settings.webhookHost}:${webhookPort} (webhooks) with ${config.brokerages().length} brokerage(s) from ${settings.configDir}; ledger ${settings.ledgerUrl ? 'on PostgreSQL (LEDGER_URL)' : settings.ledgerPath}`,
  );
  for (const extension of extensions) await extension.afterListen?.(app, parts);
  return app;
}

function redactedError(error: unknown, redactor: SecretRedactor): Error {
  const original = error instanceof Error ? error : new Error(String(error));
  const safe = new Error(redactor.redact(original.message));
  // The code (EADDRINUSE ...) is what main.ts reads to name the setting to change.
  Object.assign(safe, { code: (original as NodeJS.ErrnoException).code });
  safe.stack = redactor.redact(original.stack ?? original.message);
  return safe;
}

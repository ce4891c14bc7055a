import 'reflect-metadata';
import { INestApplication, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildAppParts, sharedModules } from '../../src/app';
import { Ledger } from '../../src/ledger';
import { SchedulerModule } from '../../src/scheduler/scheduler.module';
import { configureHttpBodyParsing } from '../../src/webhooks/webhook-body';
import { WebhookIntakeModule, WebhooksModule } from '../../src/webhooks/webhooks.module';
import { WEBHOOK_KEEP_ALIVE_MS } from '../../src/app/http-listeners';
import { freePort } from './free-port';

export interface TestBrokerage {
  id: string;
  secret: string;
  previousSecret?: string;
  previousSecretValidUntil?: string;
  cashOfferBaseUrl?: string;
  cashOfferApiKey?: string;
  crmBaseUrl?: string;
  crmToken?: string;
  // Cron expressions by schedule key (crmChanges, inboxDrain ...); defaults otherwise.
  schedules?: Record<string, string>;
  publicBaseUrl?: string;
}

export interface WebhookTestApp {
  app: INestApplication;
  url: string;
  ledger: Ledger;
  dir: string;
  // The environment the config was read from; change it (and the files) then reload.
  env: Record<string, string>;
  hookUrl(brokerageId: string, secret: string): string;
  close(): Promise<void>;
}

// Writes one config file per brokerage and the environment its secrets come from.
export function writeBrokerageConfigs(
  dir: string,
  brokerages: TestBrokerage[],
  env: Record<string, string>,
): void {
  mkdirSync(dir, { recursive: true });
  for (const b of brokerages) {
    const prefix = b.id.toUpperCase().replace(/-/g, '_');
    env[`${prefix}_CASH_OFFER_API_KEY`] = b.cashOfferApiKey ?? `key-of-${b.id}-0123456789`;
    env[`${prefix}_HUBSPOT_TOKEN`] = b.crmToken ?? `token-of-${b.id}-0123456789`;
    env[`${prefix}_WEBHOOK_SECRET`] = b.secret;
    if (b.previousSecret) env[`${prefix}_PREVIOUS_WEBHOOK_SECRET`] = b.previousSecret;
    const lines = [
      `id: ${b.id}`,
      'cashOffer:',
      `  baseUrl: ${b.cashOfferBaseUrl ?? 'http://127.0.0.1:9/api/v2'}`,
      `  apiKeyEnv: ${prefix}_CASH_OFFER_API_KEY`,
      '  timeoutMs: 2000',
      'crm:',
      '  kind: hubspot',
      `  baseUrl: ${b.crmBaseUrl ?? 'http://127.0.0.1:9'}`,
      `  tokenEnv: ${prefix}_HUBSPOT_TOKEN`,
      '  pipelines:',
      '    listings:',
      '      pipelineId: default',
      'webhooks:',
      `  publicBaseUrl: ${b.publicBaseUrl ?? 'http://127.0.0.1:3001'}`,
      `  secretEnv: ${prefix}_WEBHOOK_SECRET`,
      ...(b.previousSecret ? [`  previousSecretEnv: ${prefix}_PREVIOUS_WEBHOOK_SECRET`] : []),
      ...(b.previousSecretValidUntil ? [`  previousSecretValidUntil: "${b.previousSecretValidUntil}"`] : []),
      ...(b.schedules
        ? ['schedules:', ...Object.entries(b.schedules).map(([key, cron]) => `  ${key}: '${cron}'`)]
        : []),
    ];
    writeFileSync(join(dir, `${b.id}.yaml`), `${lines.join('\n')}\n`);
  }
}

// The daemon's webhook side (intake + inbox worker) on a free port, with a real ledger file.
export async function startWebhookApp(brokerages: TestBrokerage[]): Promise<WebhookTestApp> {
  const dir = mkdtempSync(join(tmpdir(), 'cos-webhooks-'));
  const env: Record<string, string> = {
    CONFIG_DIR: join(dir, 'brokerages'),
    LEDGER_PATH: join(dir, 'ledger.sqlite'),
    LOG_LEVEL: 'silent',
  };
  writeBrokerageConfigs(env.CONFIG_DIR, brokerages, env);
  const parts = buildAppParts({ env, strict: true });

  @Module({
    imports: [
      ...sharedModules(parts),
      SchedulerModule.forRoot({ cron: false }),
      WebhooksModule,
      WebhookIntakeModule,
    ],
  })
  class WebhookTestModule {}

  const app = await NestFactory.create(WebhookTestModule, {
    logger: process.env.TEST_LOGS ? ['error', 'warn'] : false,
    bodyParser: false,
    // A test's fetch leaves its keep-alive socket open; close would wait out its 5 s timeout.
    forceCloseConnections: true,
  });
  configureHttpBodyParsing(app);
  const port = await freePort();
  await app.listen(port, '127.0.0.1');
  // As the daemon's webhook listener does (see WEBHOOK_KEEP_ALIVE_MS).
  const server = app.getHttpServer() as import('node:http').Server;
  server.keepAliveTimeout = WEBHOOK_KEEP_ALIVE_MS;
  server.headersTimeout = WEBHOOK_KEEP_ALIVE_MS + 1_000;
  const url = `http://127.0.0.1:${port}`;
  return {
    app,
    url,
    dir,
    env,
    ledger: app.get(Ledger),
    hookUrl: (brokerageId, secret) => `${url}/webhooks/${brokerageId}/${secret}`,
    close: async () => {
      await app.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

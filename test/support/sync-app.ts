import 'reflect-metadata';
import { INestApplication, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildAppParts, sharedModules } from '../../src/app';
import { FLOW_MODULES } from '../../src/app/flow-modules';
import { crmSchemaFor } from '../../src/brokerages/crm-setup.schema';
import { CrmStageMap, type CrmPort } from '../../src/crm';
import { HubSpotCrmAdapter } from '../../src/crm/hubspot';
import { Ledger } from '../../src/ledger';
import { startCashOfferSandbox, type RunningCashOfferSandbox } from '../../src/sandbox/cash-offer';
import { startHubSpotEmulator, type HubSpotEmulator } from '../../src/sandbox/hubspot';
import { JobRunner, type JobName, type RunOptions, type RunOutcome } from '../../src/scheduler';
import { SchedulerModule } from '../../src/scheduler/scheduler.module';
import { configureHttpBodyParsing } from '../../src/webhooks/webhook-body';
import { WebhookIntakeModule } from '../../src/webhooks/webhooks.module';
import { freePort } from './free-port';

export const BROKERAGE = 'acme';
export const LISTINGS_PIPELINE = 'default';
export const TRIGGER_STAGE = 'qualifiedtobuy';
const TOKEN = 'pat-sync-seller-0000';
const SECRET = 'sync-seller-secret-0123456789abcdef';

// The Cash Offer sandbox, the HubSpot emulator (with setup-crm done) and the daemon's flows on free
// ports, with a real SQLite ledger; cron off, so tests run each job when they mean to.
export interface SyncTestApp {
  sandbox: RunningCashOfferSandbox;
  hubspot: HubSpotEmulator;
  app: INestApplication;
  ledger: Ledger;
  // A CRM port of the test's own, for acting as the agent and reading what the daemon wrote.
  crm: CrmPort;
  stages: CrmStageMap;
  // The brokerage's webhook URL on the daemon (it carries the secret).
  hookUrl: string;
  run(job: JobName, options?: RunOptions): Promise<RunOutcome>;
  close(): Promise<void>;
}

export async function startSyncApp(): Promise<SyncTestApp> {
  const dir = mkdtempSync(join(tmpdir(), 'cos-sync-seller-'));
  const sandbox = await startCashOfferSandbox({
    port: 0,
    webhookRetryDelaysMs: [50, 100, 200],
    webhookTimeoutMs: 2000,
    pushDelayMs: 20,
  });
  const hubspot = await startHubSpotEmulator({
    port: await freePort(),
    token: TOKEN,
    rateLimit: null,
    searchPerSecond: null,
  });
  const crm = new HubSpotCrmAdapter({
    accessToken: TOKEN,
    basePath: hubspot.url,
    rateLimit: { max: 10_000, intervalMs: 1000 },
    searchPerSecond: 1000,
  });
  const stages = CrmStageMap.fromReport(await crm.ensureSchema(crmSchemaFor('hubspot')));

  const port = await freePort();
  const env: Record<string, string> = {
    CONFIG_DIR: join(dir, 'brokerages'),
    LEDGER_PATH: join(dir, 'ledger.sqlite'),
    LOG_LEVEL: 'silent',
    ACME_CASH_OFFER_API_KEY: sandbox.agentKey,
    ACME_HUBSPOT_TOKEN: TOKEN,
    ACME_WEBHOOK_SECRET: SECRET,
  };
  mkdirSync(env.CONFIG_DIR, { recursive: true });
  writeFileSync(
    join(env.CONFIG_DIR, `${BROKERAGE}.yaml`),
    [
      `id: ${BROKERAGE}`,
      'cashOffer:',
      `  baseUrl: ${sandbox.baseUrl}`,
      '  apiKeyEnv: ACME_CASH_OFFER_API_KEY',
      '  timeoutMs: 1500',
      'crm:',
      '  kind: hubspot',
      `  baseUrl: ${hubspot.url}`,
      '  tokenEnv: ACME_HUBSPOT_TOKEN',
      '  rateLimit: { requestsPerSecond: 1000 }',
      '  pipelines:',
      '    listings:',
      `      pipelineId: ${LISTINGS_PIPELINE}`,
      `      triggerStageId: ${TRIGGER_STAGE}`,
      'webhooks:',
      `  publicBaseUrl: http://127.0.0.1:${port}`,
      '  secretEnv: ACME_WEBHOOK_SECRET',
      '',
    ].join('\n'),
  );
  const parts = buildAppParts({ env, strict: true });

  @Module({
    imports: [
      ...sharedModules(parts),
      SchedulerModule.forRoot({ cron: false }),
      ...FLOW_MODULES,
      WebhookIntakeModule,
    ],
  })
  class SyncTestModule {}

  const app = await NestFactory.create(SyncTestModule, {
    logger: process.env.TEST_LOGS ? ['error', 'warn', 'log'] : false,
    bodyParser: false,
  });
  configureHttpBodyParsing(app);
  await app.listen(port, '127.0.0.1');
  const runner = app.get(JobRunner);
  return {
    sandbox,
    hubspot,
    app,
    ledger: app.get(Ledger),
    crm,
    stages,
    hookUrl: `http://127.0.0.1:${port}/webhooks/${BROKERAGE}/${SECRET}`,
    run: (job, options) => runner.run(BROKERAGE, job, options),
    close: async () => {
      await app.close();
      await sandbox.close();
      await hubspot.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

// Polls until the check holds (no fixed sleeps in tests).
export async function eventually<T>(
  check: () => Promise<T | undefined | false>,
  timeoutMs = 10_000,
  intervalMs = 25,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('condition not met before the deadline');
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

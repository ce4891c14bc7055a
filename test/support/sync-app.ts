import 'reflect-metadata';
import { INestApplication, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildAppParts, sharedModules } from '../../src/app';
import { ShiftedClock } from '../../src/common/clock';
import { FLOW_MODULES } from '../../src/app/flow-modules';
import type { CrmAdapter, CrmStageMap } from '../../src/crm';
import { Ledger } from '../../src/ledger';
import { startCashOfferSandbox, type RunningCashOfferSandbox } from '../../sandbox/cash-offer';
import { DEFAULT_SEARCH_INDEX_LAG_MS, type HubSpotEmulator } from '../../sandbox/hubspot';
import { JobRunner, type JobName, type RunOptions, type RunOutcome } from '../../src/scheduler';
import { SchedulerModule } from '../../src/scheduler/scheduler.module';
import { configureHttpBodyParsing } from '../../src/webhooks/webhook-body';
import { WebhookIntakeModule } from '../../src/webhooks/webhooks.module';
import { freePort } from './free-port';
import { ledgerEngines, type LedgerEngine } from './ledger-fixture';
import { createTestPostgresDatabase } from './postgres-database';
import { CRM_VENDORS, startCrmWorld, type CrmVendor, type CrmWorld } from './sync-crm-world';
import { runWhenIdle } from './run-when-idle';
import { waitFor } from './wait-for';

// The flow suites' runs: every CRM on SQLite, and every CRM on PostgreSQL too when the test server
// is up (see jest's global setup).
export const FLOW_TARGETS: [CrmVendor, LedgerEngine][] = CRM_VENDORS.flatMap((kind) =>
  ledgerEngines().map((engine): [CrmVendor, LedgerEngine] => [kind, engine]),
);

export const BROKERAGE = 'acme';
export const LISTINGS_PIPELINE = 'default';
export const TRIGGER_STAGE = 'qualifiedtobuy';
const SECRET = 'sync-seller-secret-0123456789abcdef';

// The Cash Offer sandbox, the HubSpot emulator (with setup-crm done) and the daemon's flows on free
// ports, with a real ledger (an SQLite file, or a database of its own on the test PostgreSQL
// server); cron off, so tests run each job when they mean to.
export interface SyncTestApp {
  sandbox: RunningCashOfferSandbox;
  // The HubSpot emulator (HubSpot runs only; a Follow Up Boss run throws on reading it).
  hubspot: HubSpotEmulator;
  // The CRM under test, whichever it is.
  world: CrmWorld;
  app: INestApplication;
  ledger: Ledger;
  // A CRM port of the test's own, for acting as the agent and reading what the daemon wrote.
  crm: CrmAdapter;
  stages: CrmStageMap;
  // The brokerage's webhook URL on the daemon (it carries the secret).
  hookUrl: string;
  run(job: JobName, options?: RunOptions): Promise<RunOutcome>;
  // The daemon's and the sandbox's "now" (the machine's, moved forward by advanceClock).
  nowMs(): number;
  // Moves the daemon's and the sandbox's clocks forward together, so offers and counters run out
  // without the test waiting for them. The CRM emulators keep the machine's time.
  advanceClock(ms: number): Promise<void>;
  close(): Promise<void>;
}

export interface SyncAppOptions {
  cashOfferKey?: string;
  // Follow Up Boss: let the daemon register its change webhooks at start (off by default, so a
  // test's own crm-changes runs are never raced by early ones).
  crmChangeWebhooks?: boolean;
  // HubSpot: name the emulated private app's client secret, so the daemon takes its webhooks on
  // /webhooks/crm/hubspot/acme (the emulator sends them once told where: test's own doing).
  hubSpotWebhooks?: boolean;
  // Schedule jobs on cron (off by default: tests run each job when they mean to), with these
  // `schedules:` lines of the brokerage file.
  cron?: { schedules: Record<string, string> };
  // A PostgreSQL ledger (a test database's URL): with `cron`, pg-boss schedules, as on workers.
  ledgerUrl?: string;
  // A fresh test database on the test PostgreSQL server for this app's ledger (dropped at close).
  engine?: LedgerEngine;
  // More top-level lines of the brokerage file (`offerClocks:` and its settings ...), which may name
  // things of the CRM world (a user's id).
  brokerageLines?: (world: CrmWorld) => string[];
  // crm.pipelines.listings.triggerProperty (beside the world's trigger stage).
  triggerProperty?: string;
}

export async function startSyncApp(
  kind: CrmVendor = 'hubspot',
  options: SyncAppOptions = {},
): Promise<SyncTestApp> {
  const dir = mkdtempSync(join(tmpdir(), 'cos-sync-seller-'));
  const database = options.engine === 'postgres' ? await createTestPostgresDatabase('flows') : undefined;
  const sandbox = await startCashOfferSandbox({
    port: 0,
    webhookRetryDelaysMs: [50, 100, 200],
    webhookTimeoutMs: 2000,
    pushDelayMs: 20,
  });
  const world = await startCrmWorld(kind);
  const { raw: crm, stages } = world;

  const port = await freePort();
  const env: Record<string, string> = {
    CONFIG_DIR: join(dir, 'brokerages'),
    LEDGER_PATH: join(dir, 'ledger.sqlite'),
    ...(options.ledgerUrl || database ? { LEDGER_URL: options.ledgerUrl ?? database!.url } : {}),
    LOG_LEVEL: 'silent',
    ACME_CASH_OFFER_API_KEY: options.cashOfferKey ?? sandbox.agentKey,
    ...world.env,
    ...(world.hubspot ? { ACME_HUBSPOT_CLIENT_SECRET: world.hubspot.clientSecret } : {}),
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
      // The flows, not the account's pacing, are under test: the default 10 calls a second made a
      // counter's drain and the reconcile after it wait out the window (the limiter has its own tests).
      '  rateLimit: { requestsPerSecond: 1000 }',
      'crm:',
      ...world.configLines,
      ...(kind === 'followupboss' ? [`  changeWebhooks: ${options.crmChangeWebhooks === true}`] : []),
      ...(kind === 'hubspot' && options.hubSpotWebhooks
        ? ['  clientSecretEnv: ACME_HUBSPOT_CLIENT_SECRET']
        : []),
      '  pipelines:',
      '    listings:',
      `      pipelineId: ${JSON.stringify(world.listings.pipelineId)}`,
      `      triggerStageId: ${JSON.stringify(world.listings.triggerStageId)}`,
      ...(options.triggerProperty
        ? [`      triggerProperty: ${JSON.stringify(options.triggerProperty)}`]
        : []),
      'webhooks:',
      `  publicBaseUrl: http://127.0.0.1:${port}`,
      '  secretEnv: ACME_WEBHOOK_SECRET',
      ...(options.cron
        ? ['schedules:', ...Object.entries(options.cron.schedules).map(([k, v]) => `  ${k}: '${v}'`)]
        : []),
      ...(options.brokerageLines?.(world) ?? []),
      '',
    ].join('\n'),
  );
  const clock = new ShiftedClock();
  const parts = { ...buildAppParts({ env, strict: true }), clock };

  @Module({
    imports: [
      ...sharedModules(parts),
      SchedulerModule.forRoot({ cron: options.cron !== undefined, sharedLedger: Boolean(options.ledgerUrl) }),
      ...FLOW_MODULES,
      WebhookIntakeModule,
    ],
  })
  class SyncTestModule {}

  const app = await NestFactory.create(SyncTestModule, {
    logger: process.env.TEST_LOGS ? ['error', 'warn', 'log'] : false,
    bodyParser: false,
     // A test's fetch leaves its keep-alive socket open; close would wait out its 5 s timeout.
    forceCloseConnections: true,
  });
  configureHttpBodyParsing(app);
  await app.listen(port, '127.0.0.1');
  const runner = app.get(JobRunner);
  return {
    sandbox,
    get hubspot(): HubSpotEmulator {
      if (!world.hubspot) throw new Error('this run talks to Follow Up Boss, not HubSpot');
      return world.hubspot;
    },
    world,
    app,
    ledger: app.get(Ledger),
    crm,
    stages,
    hookUrl: `http://127.0.0.1:${port}/webhooks/${BROKERAGE}/${SECRET}`,
    // Tests check one crm-changes cycle after an agent's edit. HubSpot's search shows an edit only
    // after its indexing lag, as the next cron run would find it; so the cycle starts once the index
    // has caught up (polled, with a deadline).
    run: async (job, options) => {
      if (job === 'crm-changes' && world.hubspot) await searchCaughtUp(world.hubspot);
      return runWhenIdle(runner, BROKERAGE, job, options);
    },
    nowMs: () => clock.nowMs(),
    advanceClock: async (ms) => {
      const res = await fetch(`${sandbox.controlUrl}/clock/advance`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ms }),
      });
      if (!res.ok) throw new Error(`the sandbox's clock did not move: ${res.status} ${await res.text()}`);
      clock.shift(ms);
    },
    close: async () => {
      await app.close();
      await sandbox.close();
      await world.close();
      await database?.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function searchCaughtUp(hubspot: HubSpotEmulator): Promise<void> {
  await waitFor(() => hubspot.state.searchCaughtUp(), {
    what: 'the HubSpot emulator search index to catch up',
    timeoutMs: DEFAULT_SEARCH_INDEX_LAG_MS + 10_000,
    intervalMs: 50,
  });
}

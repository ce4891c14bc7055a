import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { startCashOfferSandbox, type RunningCashOfferSandbox } from '../../../sandbox/cash-offer';
import { startHubSpotEmulator, type HubSpotEmulator } from '../../../sandbox/hubspot';
import { CASH_OFFER_CRM_SCHEMA } from '../../../src/crm';
import { HubSpotCrmAdapter } from '../../../src/crm/hubspot';
import { startWebhookReceiver } from '../../support/alert-receivers';
import { freePort } from '../../support/free-port';
import {
  createTestPostgresDatabase,
  testPostgresUrl,
  type TestPostgresDatabase,
} from '../../support/postgres-database';
import { DAEMON_WAIT, MAIN_JS, startProcess, type RunningProcess } from '../daemon/daemon.fixtures';
import { waitFor } from '../../support/wait-for';

jest.setTimeout(180_000);

const TOKEN = 'pat-alerts-workers-0123456789';
const SECRET = 'alert-signing-secret-workers-0123';
const EVERY_2S = '*/2 * * * * *';

// Two workers of the built daemon on one PostgreSQL ledger see the same refused key: the alert's
// state is in the shared ledger and changed by conditional updates, so the receiver gets one firing
// and, after the key is fixed and both reload, one resolved notification.
(testPostgresUrl() ? describe : describe.skip)('alerts with two workers on PostgreSQL', () => {
  let dir: string;
  let db: TestPostgresDatabase;
  let sandbox: RunningCashOfferSandbox;
  let emulator: HubSpotEmulator;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  const workers: RunningProcess[] = [];

  const notices = (state: string) =>
    receiver.received.filter((r) => r.json.kind === 'credential_refused' && r.json.state === state);
  const linesOf = (w: RunningProcess, text: string) =>
    w
      .stdout()
      .split('\n')
      .filter((l) => l.includes(text)).length;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cos-alerts-workers-'));
    db = await createTestPostgresDatabase('alerts');
    sandbox = await startCashOfferSandbox({ port: 0 });
    emulator = await startHubSpotEmulator({ port: 0, token: TOKEN, rateLimit: null, searchPerSecond: null });
    await new HubSpotCrmAdapter({ accessToken: TOKEN, basePath: emulator.url }).ensureSchema(
      CASH_OFFER_CRM_SCHEMA,
    );
    receiver = await startWebhookReceiver(SECRET);
  });

  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    await sandbox?.close();
    await emulator?.close();
    await receiver?.close();
    await db?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('notifies each change of state once, whichever worker sees it', async () => {
    const keyFile = join(dir, 'cash-offer.key');
    writeFileSync(keyFile, 'a-key-the-service-does-not-know');
    const configDir = join(dir, 'brokerages');
    mkdirSync(configDir);
    writeFileSync(
      join(configDir, 'acme.yaml'),
      stringify({
        id: 'acme',
        cashOffer: { baseUrl: sandbox.baseUrl, apiKeyFile: keyFile },
        crm: {
          kind: 'hubspot',
          baseUrl: emulator.url,
          tokenEnv: 'ACME_TOKEN',
          pipelines: { listings: { pipelineId: 'default', triggerProperty: 'cash_offer_request_trigger' } },
        },
        webhooks: { publicBaseUrl: 'http://127.0.0.1:9', secretEnv: 'ACME_WEBHOOK_SECRET' },
        schedules: {
          crmChanges: EVERY_2S,
          outboxDrain: EVERY_2S,
          marketplace: EVERY_2S,
          offersReconcile: EVERY_2S,
        },
      }),
    );
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      TZ: 'UTC',
      CONFIG_DIR: configDir,
      LEDGER_URL: db.url,
      JOB_LEASE_SECONDS: '10',
      ADMIN_HOST: '127.0.0.1',
      WEBHOOK_HOST: '127.0.0.1',
      LOG_LEVEL: 'debug',
      ACME_TOKEN: TOKEN,
      ACME_WEBHOOK_SECRET: 'whsec-acme-workers-0123456789abcdef',
      ALERT_WEBHOOK_URL: receiver.url,
      ALERT_WEBHOOK_SECRET: SECRET,
      ALERT_CHECK_SECONDS: '1',
      ALERT_RENOTIFY_MINUTES: '0',
      ALERT_CREDENTIAL_RECHECK_MINUTES: '60',
    };
    // One after the other: the first makes the schema.
    for (let i = 0; i < 2; i++) {
      const worker = startProcess(MAIN_JS, {
        ...env,
        ADMIN_PORT: String(await freePort()),
        WEBHOOK_PORT: String(await freePort()),
      });
      await waitFor(() => worker.stdout().includes('listening on') || worker.child.exitCode !== null, {
        what: 'a worker to start',
        ...DAEMON_WAIT,
        timeoutMs: 60_000,
      });
      if (worker.child.exitCode !== null) throw new Error(`a worker exited: ${worker.stderr()}`);
      workers.push(worker);
    }
    await waitFor(() => notices('firing').length > 0, {
      what: 'the firing alert',
      ...DAEMON_WAIT,
      timeoutMs: 60_000,
    });
    // Both workers have looked at the problem several times since: still one notification.
    const checks = workers.map((w) => linesOf(w, 'alert check done'));
    await waitFor(() => workers.every((w, i) => linesOf(w, 'alert check done') >= checks[i] + 3), {
      what: 'three more alert checks on each worker',
      ...DAEMON_WAIT,
      timeoutMs: 30_000,
    });
    expect(notices('firing')).toHaveLength(1);
    expect(notices('firing')[0]).toMatchObject({ signatureValid: true, json: { brokerage: 'acme' } });

    writeFileSync(keyFile, sandbox.agentKey);
    for (const w of workers) w.child.kill('SIGHUP');
    await waitFor(() => notices('resolved').length > 0, {
      what: 'the resolved alert',
      ...DAEMON_WAIT,
      timeoutMs: 60_000,
    });
    const after = workers.map((w) => linesOf(w, 'alert check done'));
    await waitFor(() => workers.every((w, i) => linesOf(w, 'alert check done') >= after[i] + 3), {
      what: 'three more alert checks on each worker',
      ...DAEMON_WAIT,
      timeoutMs: 30_000,
    });
    expect(notices('firing')).toHaveLength(1);
    expect(notices('resolved')).toHaveLength(1);
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { freePort } from '../../support/free-port';
import {
  DAEMON_WAIT,
  EMBEDDED_MAIN_JS,
  ROOT,
  makeWorkspace,
  runEmbeddedCli,
  startProcess,
  writeBrokerage,
  type RunningProcess,
  type Workspace,
} from './daemon.fixtures';
import { waitFor } from '../../support/wait-for';

// What a newcomer sees from `npm start`: the demo brokerage (simulated: true) makes the daemon start
// the bundled simulators with the autopilot on, seed listing deals and marketplace requests, and run
// the whole loop. Same file as config/brokerages/demo.yaml, on free ports.
describe('the embedded default', () => {
  let ws: Workspace;
  let daemon: RunningProcess;
  let env: NodeJS.ProcessEnv;
  let url: string;

  beforeAll(async () => {
    ws = makeWorkspace();
    const [adminPort, webhookPort, cashOfferPort, hubspotPort] = [
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
    ];
    const demo = parse(readFileSync(join(ROOT, 'config/brokerages/demo.yaml'), 'utf8')) as Record<
      string,
      Record<string, unknown>
    >;
    demo.cashOffer.baseUrl = `http://127.0.0.1:${cashOfferPort}/api/v2`;
    demo.crm.baseUrl = `http://127.0.0.1:${hubspotPort}`;
    demo.webhooks.publicBaseUrl = `http://127.0.0.1:${webhookPort}`;
    writeBrokerage(ws, demo);
    // No secrets given: a simulated brokerage gets the simulators' own.
    env = {
      PATH: process.env.PATH,
      TZ: 'UTC',
      CONFIG_DIR: ws.configDir,
      LEDGER_PATH: ws.ledgerPath,
      ADMIN_PORT: String(adminPort),
      WEBHOOK_PORT: String(webhookPort),
      LOG_LEVEL: 'info',
    };
    url = `http://127.0.0.1:${adminPort}`;
    daemon = startProcess(EMBEDDED_MAIN_JS, env);
  });

  afterAll(async () => {
    await daemon.stop();
    ws.cleanup();
  });

  const metric = async (pattern: RegExp): Promise<number> => {
    // Not listening yet while the daemon starts.
    const text = await fetch(`${url}/metrics`)
      .then((res) => res.text())
      .catch(() => '');
    return text
      .split('\n')
      .filter((line) => pattern.test(line))
      .reduce((sum, line) => sum + Number(line.split(' ').pop()), 0);
  };

  // The demo's crons tick every 2 to 30 s; on a busy CI machine the whole loop gets three minutes.
  it('creates offer requests, receives offers and mirrors the marketplace within a minute, visible in status and /metrics', async () => {
    await waitFor(async () => (await metric(/flow="outbox:create_offer_request",outcome="done"/)) >= 3, {
      what: 'offer requests created',
      ...DAEMON_WAIT,
      timeoutMs: 60_000,
    });
    await waitFor(async () => (await metric(/flow="offers",outcome="created"/)) >= 1, {
      what: 'offers in the CRM',
      ...DAEMON_WAIT,
      timeoutMs: 60_000,
    });
    await waitFor(async () => (await metric(/flow="marketplace",outcome="created"/)) >= 25, {
      what: 'the marketplace mirrored',
      ...DAEMON_WAIT,
      timeoutMs: 60_000,
    });
    expect(
      await metric(/cash_offer_sync_webhook_events_total\{brokerage="demo",result="received"\}/),
    ).toBeGreaterThan(0);

    const status = await runEmbeddedCli(['status', '--json'], env);
    expect(status.code).toBe(0);
    const json = JSON.parse(status.stdout) as {
      daemon: unknown;
      brokerages: {
        id: string;
        jobs: { job: string; lastRun: { status: string } | null }[];
        openErrors: number;
      }[];
    };
    const demo = json.brokerages.find((b) => b.id === 'demo')!;
    expect(demo.jobs.find((j) => j.job === 'marketplace')?.lastRun?.status).toBe('succeeded');
    // The demo's deliberately invalid listing is shown to the operator with its field.
    const errors = await runEmbeddedCli(['errors', '--json'], env);
    expect(errors.stdout).toContain('property.StreetName is 61 characters; the service allows 50');
    expect(demo.openErrors).toBeGreaterThanOrEqual(1);
  }, 180_000);
});

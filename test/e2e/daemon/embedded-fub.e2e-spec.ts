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

type Yaml = Record<string, Record<string, unknown>>;

// `npm start` with both demo brokerages (config/brokerages/demo.yaml and demo-fub.yaml): offers reach
// a HubSpot deal and a Follow Up Boss deal, each brokerage on its own emulator, on free ports.
describe('the embedded default with the Follow Up Boss demo brokerage', () => {
  let ws: Workspace;
  let daemon: RunningProcess;
  let env: NodeJS.ProcessEnv;
  let url: string;

  beforeAll(async () => {
    ws = makeWorkspace();
    const [adminPort, webhookPort, cashOfferPort, hubspotPort, fubPort] = [
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
    ];
    for (const [file, crmPort] of [
      ['demo.yaml', hubspotPort],
      ['demo-fub.yaml', fubPort],
    ] as const) {
      const demo = parse(readFileSync(join(ROOT, 'config/brokerages', file), 'utf8')) as Yaml;
      demo.cashOffer.baseUrl = `http://127.0.0.1:${cashOfferPort}/api/v2`;
      demo.crm.baseUrl = `http://127.0.0.1:${crmPort}`;
      demo.webhooks.publicBaseUrl = `http://127.0.0.1:${webhookPort}`;
      writeBrokerage(ws, demo);
    }
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
    const text = await fetch(`${url}/metrics`)
      .then((res) => res.text())
      .catch(() => '');
    return text
      .split('\n')
      .filter((line) => pattern.test(line))
      .reduce((sum, line) => sum + Number(line.split(' ').pop()), 0);
  };

  it('offers reach a Follow Up Boss deal and a HubSpot deal, visible in /metrics and the CLI', async () => {
    for (const brokerage of ['demo', 'demo-fub']) {
      await waitFor(
        async () =>
          (await metric(new RegExp(`(?=.*brokerage="${brokerage}")(?=.*flow="offers",outcome="created")`))) >=
          1,
        { what: `offers in the CRM of ${brokerage}`, ...DAEMON_WAIT, timeoutMs: 90_000 },
      );
    }
    const status = await runEmbeddedCli(['status', '--json'], env);
    expect(status.code).toBe(0);
    const json = JSON.parse(status.stdout) as { brokerages: { id: string }[] };
    expect(json.brokerages.map((b) => b.id)).toEqual(expect.arrayContaining(['demo', 'demo-fub']));
    const errors = await runEmbeddedCli(['errors', '--json', '--brokerage', 'demo-fub'], env);
    expect(errors.stdout).toContain('property.StreetName is 61 characters; the service allows 50');
  }, 180_000);
});

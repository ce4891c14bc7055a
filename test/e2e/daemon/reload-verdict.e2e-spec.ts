import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../../support/free-port';
import {
  DAEMON_WAIT,
  MAIN_JS,
  baseEnv,
  brokerageConfig,
  makeWorkspace,
  readEvents,
  runCli,
  secretsOf,
  startHarness,
  startProcess,
  writeBrokerage,
  type RunningProcess,
  type Workspace,
} from './daemon.fixtures';
import { waitFor } from '../../support/wait-for';

const EVERY_SECOND = { outboxDrain: '* * * * * *' };

// reload-config used to exit 0 for a brokerage the daemon then rejected (its secret
// variable existed only in the CLI's environment), and readiness went 503 for every brokerage.
describe('reload-config and the daemon verdict', () => {
  let ws: Workspace;
  let daemon: RunningProcess;
  let url: string;
  let port: number;
  const betaSecretFile = (): string => join(ws.dir, 'beta-webhook-secret');

  beforeAll(async () => {
    ws = makeWorkspace();
    writeBrokerage(ws, brokerageConfig('acme', EVERY_SECOND));
    // Beta's webhook secret is a mounted file, not a variable.
    writeFileSync(betaSecretFile(), 'beta-webhook-secret-from-a-file-01\n');
    const beta = brokerageConfig('beta', EVERY_SECOND) as { webhooks: Record<string, unknown> };
    beta.webhooks = { publicBaseUrl: 'http://127.0.0.1:3001', secretFile: betaSecretFile() };
    writeBrokerage(ws, beta);
    ({ daemon, url, port } = await startHarness(ws, ['acme', 'beta']));
  });

  afterAll(async () => {
    await daemon.stop();
    ws.cleanup();
  });

  it("exits non-zero with the daemon's message when the daemon cannot load a brokerage, which alone is unready", async () => {
    writeBrokerage(ws, brokerageConfig('gamma', EVERY_SECOND));
    // The CLI's shell has gamma's variables; the daemon's environment does not.
    const cliEnv = baseEnv(ws, port, ['acme', 'beta', 'gamma']);
    const reload = await runCli(['reload-config'], cliEnv);
    expect(reload.code).toBe(1);
    expect(reload.stderr).toMatch(/daemon pid \d+: the daemon could not load \[gamma\]/);
    expect(reload.stderr).toContain(
      'gamma.yaml (gamma): cashOffer.apiKeyEnv names the environment variable GAMMA_CASH_OFFER_KEY, which is not set',
    );
    for (const value of Object.values(secretsOf('gamma')))
      expect(reload.stderr + reload.stdout).not.toContain(value);

    expect((await fetch(`${url}/health/ready`)).status).toBe(200);
    expect((await fetch(`${url}/health/ready/gamma`)).status).toBe(503);
    expect((await fetch(`${url}/health/ready/acme`)).status).toBe(200);
    const after = Date.now();
    await waitFor(
      () => readEvents(ws).some((e) => e.brokerageId === 'acme' && e.type === 'end' && e.at > after),
      { what: 'acme to keep running', ...DAEMON_WAIT },
    );
  });

  it('reads a secret file again on reload and reports what changed, exit code 0', async () => {
    rmSync(join(ws.configDir, 'gamma.yaml'));
    writeFileSync(betaSecretFile(), 'beta-webhook-secret-rotated-000002\n');
    const reload = await runCli(['reload-config'], baseEnv(ws, port, ['acme', 'beta']));
    expect(reload.stderr).not.toContain('error');
    expect(reload.code).toBe(0);
    expect(reload.stdout).toMatch(
      /^daemon pid \d+: the daemon reloaded the config: added \[\], changed \[beta\], removed \[\]/,
    );
    expect(reload.stdout).not.toContain('beta-webhook-secret');
    expect((await fetch(`${url}/health/ready/gamma`)).status).toBe(404);
  });
});

// The same through the real daemon's webhook intake: a failed reload leaves the healthy brokerages'
// webhooks flowing, and a rotated secret file is what the webhook URL accepts after the reload.
describe('webhooks across reloads', () => {
  let ws: Workspace;
  let daemon: RunningProcess;
  let webhooks: string;
  let cliEnv: NodeJS.ProcessEnv;
  const secretFile = (): string => join(ws.dir, 'beta-webhook-secret');
  const post = (id: string, secret: string, offerId: number): Promise<number> =>
    fetch(`${webhooks}/webhooks/${id}/${secret}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        event: 'offer_request_approved',
        offer_request_id: offerId,
        offer_request_status: 'receiving_offers',
      }),
    }).then((res) => res.status);

  beforeAll(async () => {
    ws = makeWorkspace();
    const nowhere = `http://127.0.0.1:${await freePort()}`;
    const withNowhere = (config: Record<string, unknown>): Record<string, unknown> => {
      const c = config as { cashOffer: { baseUrl: string }; crm: { baseUrl: string } };
      c.cashOffer.baseUrl = `${nowhere}/api/v2`;
      c.crm.baseUrl = nowhere;
      return config;
    };
    writeBrokerage(ws, withNowhere(brokerageConfig('acme')));
    writeFileSync(secretFile(), 'beta-webhook-secret-from-a-file-01\n');
    const beta = withNowhere(brokerageConfig('beta')) as { webhooks: Record<string, unknown> };
    beta.webhooks = { publicBaseUrl: nowhere, secretFile: secretFile() };
    writeBrokerage(ws, beta);
    const [adminPort, webhookPort] = [await freePort(), await freePort()];
    daemon = startProcess(MAIN_JS, baseEnv(ws, adminPort, ['acme', 'beta'], webhookPort));
    await waitFor(() => daemon.stdout().includes('"listening on') || daemon.child.exitCode !== null, {
      what: 'the daemon to listen',
      ...DAEMON_WAIT,
    });
    if (daemon.child.exitCode !== null) throw new Error(`daemon exited: ${daemon.stderr()}`);
    webhooks = `http://127.0.0.1:${webhookPort}`;
    cliEnv = baseEnv(ws, adminPort, ['acme', 'beta', 'gamma'], webhookPort);
  });

  afterAll(async () => {
    await daemon.stop();
    ws.cleanup();
  });

  it('keeps receiving the healthy brokerages, and accepts only the rotated secret after a reload', async () => {
    const acmeSecret = secretsOf('acme').ACME_WEBHOOK_SECRET;
    writeBrokerage(ws, brokerageConfig('gamma'));
    expect((await runCli(['reload-config'], cliEnv)).code).toBe(1);
    expect(await post('acme', acmeSecret, 1)).toBe(200);
    expect(await post('beta', 'beta-webhook-secret-from-a-file-01', 2)).toBe(200);
    expect(await post('gamma', secretsOf('gamma').GAMMA_WEBHOOK_SECRET, 3)).toBe(404);

    rmSync(join(ws.configDir, 'gamma.yaml'));
    writeFileSync(secretFile(), 'beta-webhook-secret-rotated-000002\n');
    expect((await runCli(['reload-config'], cliEnv)).code).toBe(0);
    expect(await post('beta', 'beta-webhook-secret-from-a-file-01', 4)).toBe(404);
    expect(await post('beta', 'beta-webhook-secret-rotated-000002', 5)).toBe(200);
    expect(await post('acme', acmeSecret, 6)).toBe(200);
  }, 60_000);
});

import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  baseEnv,
  brokerageConfig,
  makeWorkspace,
  readEvents,
  runCli,
  secretsOf,
  startHarness,
  waitFor,
  writeBrokerage,
  type RunningProcess,
  type Workspace,
} from './daemon.fixtures';

const EVERY_SECOND = { outboxDrain: '* * * * * *' };

// Issue 14, item 4: reload-config exited 0 for a brokerage the daemon then rejected (its secret
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
      'acme to keep running',
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

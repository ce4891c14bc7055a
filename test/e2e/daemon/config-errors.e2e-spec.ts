import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  baseEnv,
  brokerageConfig,
  MAIN_JS,
  makeWorkspace,
  runCli,
  runEmbeddedCli,
  secretsOf,
  startProcess,
  writeBrokerage,
  type Workspace,
} from './daemon.fixtures';

// Child processes take a second or more each on a busy machine.
jest.setTimeout(60_000);

// A bad brokerage file stops the daemon before it starts: exit code 1 and every problem on stderr,
// naming the file, the brokerage and the key.
describe('daemon start with a bad config', () => {
  let ws: Workspace;
  beforeEach(() => (ws = makeWorkspace()));
  afterEach(() => ws.cleanup());

  async function startExpectingFailure(env: NodeJS.ProcessEnv): Promise<string> {
    const daemon = startProcess(MAIN_JS, env);
    const { code } = await daemon.exited;
    expect(code).toBe(1);
    expect(daemon.stdout()).not.toContain('listening on');
    return daemon.stderr();
  }

  it('names the file, the brokerage and the key of each problem, and does not start', async () => {
    const acme = brokerageConfig('acme', { marketplace: 'every minute' });
    (acme.crm as Record<string, unknown>).tokenEnv = 'pat-abc123';
    (acme.cashOffer as Record<string, unknown>).baseUrl = 'not a url';
    writeBrokerage(ws, acme);
    const beta = brokerageConfig('beta');
    delete (beta.webhooks as Record<string, unknown>).publicBaseUrl;
    beta.colour = 'blue';
    writeBrokerage(ws, beta, 'beta.json');
    writeFileSync(join(ws.configDir, 'broken.yaml'), 'id: broken\ncrm: [unclosed');
    writeBrokerage(ws, brokerageConfig('gamma'), 'delta.yaml');

    const stderr = await startExpectingFailure(baseEnv(ws, 0, ['acme', 'beta', 'gamma']));
    const file = (name: string): string => join(ws.configDir, name);
    expect(stderr).toContain(
      `${file('acme.yaml')} (acme): crm.tokenEnv must be the NAME of an environment variable`,
    );
    expect(stderr).toContain(`${file('acme.yaml')} (acme): cashOffer.baseUrl must be an http(s) URL`);
    expect(stderr).toContain(
      `${file('acme.yaml')} (acme): schedules.marketplace must be a cron expression of 5 or 6 fields`,
    );
    expect(stderr).toContain(`${file('beta.json')} (beta): webhooks.publicBaseUrl must be an http(s) URL`);
    expect(stderr).toContain(`${file('beta.json')} (beta): colour is not a known setting`);
    expect(stderr).toContain(`${file('broken.yaml')}: cannot be parsed`);
    expect(stderr).toContain(`${file('delta.yaml')} (gamma): id must match the file name ("delta")`);
  });

  it('refuses an invalid cron expression and an unset secret variable, without printing secrets', async () => {
    writeBrokerage(ws, brokerageConfig('acme', { outboxDrain: '61 * * * *' }));
    writeBrokerage(ws, brokerageConfig('beta'));
    const env = baseEnv(ws, 0, ['acme', 'beta']);
    delete env.BETA_CRM_TOKEN;
    const stderr = await startExpectingFailure(env);
    expect(stderr).toMatch(/acme\.yaml \(acme\): schedules\.outboxDrain is not a valid cron expression/);
    expect(stderr).toContain(
      'beta.yaml (beta): crm.tokenEnv names the environment variable BETA_CRM_TOKEN, which is not set',
    );
    for (const value of Object.values(secretsOf('beta'))) expect(stderr).not.toContain(value);
  });

  it('refuses a bad daemon setting and a missing config directory', async () => {
    const env = { ...baseEnv(ws, 0, []), ADMIN_PORT: 'eighty', CONFIG_DIR: join(ws.dir, 'nope') };
    const stderr = await startExpectingFailure(env);
    expect(stderr).toContain('environment: ADMIN_PORT must be an integer from 0 to 65535, got "eighty"');
    const retired = await startExpectingFailure({ ...env, ADMIN_PORT: '0', HTTP_PORT: '3000' });
    expect(retired).toContain(
      'environment: HTTP_PORT is no longer read: set ADMIN_PORT (health, metrics) and WEBHOOK_PORT (webhooks) instead',
    );
    const again = await startExpectingFailure({ ...env, ADMIN_PORT: '0' });
    expect(again).toMatch(/nope: cannot be read \(CONFIG_DIR\)/);
  });

  it('validate-config reports every problem with exit code 1, and OK with exit code 0', async () => {
    writeBrokerage(ws, brokerageConfig('acme', { crmChanges: '* * *' }));
    const env = baseEnv(ws, 0, ['acme']);
    const bad = await runCli(['validate-config'], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(
      'acme.yaml (acme): schedules.crmChanges must be a cron expression of 5 or 6 fields, got 3',
    );
    const badJson = await runCli(['validate-config', '--json'], env);
    expect(badJson.code).toBe(1);
    expect(JSON.parse(badJson.stdout)).toMatchObject({
      valid: false,
      problems: [{ brokerageId: 'acme', path: 'schedules.crmChanges' }],
    });

    writeBrokerage(ws, brokerageConfig('acme'));
    const good = await runCli(['validate-config'], env);
    expect(good.code).toBe(0);
    expect(good.stdout).toContain('config OK: 1 brokerage(s)');
    expect(good.stdout).toContain('acme (');
  });

  // Walking docs/operations.md: `npm run cli -- validate-config` said OK for the demo's files (it
  // fills their secrets, as npm start does), then `npm run start:daemon` refused them.
  it('validate-config through npm run cli says a simulated brokerage runs under npm start only', async () => {
    writeBrokerage(ws, { ...brokerageConfig('demo'), simulated: true });
    const env = baseEnv(ws, 0, ['demo']);
    const answer = await runEmbeddedCli(['validate-config'], env);
    expect(answer.code).toBe(0);
    expect(answer.stdout).toContain('demo (');
    expect(answer.stdout).toContain('[simulated: only npm start runs it; remove it for a real deployment]');
  });
});

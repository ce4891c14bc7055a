import { readFileSync } from 'node:fs';
import { reloadVerdictPath } from '../../../src/app/reload-verdict.file';
import {
  baseEnv,
  brokerageConfig,
  makeWorkspace,
  runCli,
  secretsOf,
  startHarness,
  writeBrokerage,
  type RunningProcess,
  type Workspace,
} from '../daemon/daemon.fixtures';

jest.setTimeout(90_000);

interface ReloadJson {
  ok: boolean;
  pid: number | null;
  message: string;
  problems: string[];
  notCheckedHere: string[];
}

// `reload-config` used to judge the files with the CLI shell's environment and refuse, in a shell
// without the daemon's secrets, a config the daemon loads. What this shell cannot check is now said
// and left to the daemon, whose verdict decides; a problem of the file itself still stops it here
// (the compiled CLI and daemon: needs `npm run build`).
describe('cli reload-config from a shell without the daemon secrets', () => {
  let ws: Workspace;
  let daemon: RunningProcess;
  let port: number;
  // This shell has beta's secrets, not acme's: the daemon has both.
  const shell = (): NodeJS.ProcessEnv => baseEnv(ws, port, ['beta']);
  const verdictText = (): string => readFileSync(reloadVerdictPath(ws.ledgerPath), 'utf8');

  beforeAll(async () => {
    ws = makeWorkspace();
    writeBrokerage(ws, brokerageConfig('acme'));
    writeBrokerage(ws, brokerageConfig('beta'));
    ({ daemon, port } = await startHarness(ws, ['acme', 'beta']));
  });

  afterAll(async () => {
    await daemon.stop();
    ws.cleanup();
  });

  it("reloads, says what it could not check here, and reports the daemon's verdict", async () => {
    writeBrokerage(ws, brokerageConfig('acme', { marketplace: '*/7 * * * *' }));
    const reload = await runCli(['reload-config'], shell());
    expect(reload.stderr).toContain(
      'this shell could not check 3 thing(s) the daemon judges with its own environment:',
    );
    expect(reload.stderr).toMatch(/acme\.yaml \(acme\): ACME_CRM_TOKEN is not set here/);
    expect(reload.stdout).toMatch(
      /^daemon pid \d+: the daemon reloaded the config: added \[\], changed \[acme\], removed \[\]/,
    );
    expect(reload.code).toBe(0);
    for (const value of Object.values(secretsOf('acme')))
      expect(reload.stderr + reload.stdout).not.toContain(value);

    const json = await runCli(['reload-config', '--json'], shell());
    const body = JSON.parse(json.stdout) as ReloadJson;
    expect(body).toMatchObject({ ok: true, problems: [] });
    expect(body.message).toMatch(/^daemon pid \d+: the daemon reloaded the config/);
    expect(body.notCheckedHere).toHaveLength(3);
    expect(body.notCheckedHere.every((n) => /acme\.yaml \(acme\): ACME_\w+ is not set here$/.test(n))).toBe(
      true,
    );
    expect(json.code).toBe(0);
  });

  it('still stops at a problem of a file itself, sending nothing, and says what it could not check', async () => {
    const before = verdictText();
    writeBrokerage(ws, { ...brokerageConfig('beta'), colour: 'blue' });
    const reload = await runCli(['reload-config'], shell());
    expect(reload.code).toBe(1);
    expect(reload.stderr).toContain(
      'not reloading; the config has 1 problem(s) the daemon would refuse too:',
    );
    expect(reload.stderr).toMatch(/beta\.yaml \(beta\): colour/);
    expect(reload.stderr).toMatch(
      /could not check 3 thing\(s\)[^]*acme\.yaml \(acme\): ACME_CRM_TOKEN is not set here/,
    );
    expect(verdictText()).toBe(before);
  });
});

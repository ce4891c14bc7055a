import { statSync } from 'node:fs';
import { join } from 'node:path';
import { openLedger } from '../../../src/ledger';
import {
  baseEnv,
  brokerageConfig,
  makeWorkspace,
  runCli,
  writeBrokerage,
  type Workspace,
} from '../daemon/daemon.fixtures';

// The operator's ledger maintenance commands, as the compiled CLI (`npm run build` first).
describe('ledger maintenance from the CLI', () => {
  let ws: Workspace;
  let env: NodeJS.ProcessEnv;

  beforeEach(() => {
    ws = makeWorkspace();
    writeBrokerage(ws, brokerageConfig('acme'));
    env = baseEnv(ws, 0, ['acme']);
  });
  afterEach(() => ws.cleanup());

  // Issue 14, item 6: the documented backup failed on a fresh install and wrote a 0644 file.
  it('backup copies the ledger, in use, to a new 0600 file and refuses to overwrite one', async () => {
    const ledger = await openLedger({ databasePath: ws.ledgerPath });
    await ledger.runs.start('acme', 'marketplace');
    const destination = join(ws.dir, 'backup', `ledger-${Date.now()}.sqlite`);

    const first = await runCli(['backup', '--to', destination], env);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(`backed up ${ws.ledgerPath} to ${destination}`);
    expect((statSync(destination).mode & 0o777).toString(8)).toBe('600');
    const copy = await openLedger({ databasePath: destination });
    expect(await copy.runs.list()).toHaveLength(1);
    await copy.close();

    const again = await runCli(['backup', '--to', destination], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`backup failed: refusing to overwrite ${destination}: it already exists`);
    const missing = await runCli(['backup'], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('backup needs --to <path>');
    await ledger.close();
  });
});

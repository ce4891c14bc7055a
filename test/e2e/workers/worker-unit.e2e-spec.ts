import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestPostgresDatabase, type TestPostgresDatabase } from '../../support/postgres-database';
import { waitFor } from '../../support/wait-for';
import {
  DAEMON_WAIT,
  MAIN_JS,
  baseEnv,
  brokerageConfig,
  makeWorkspace,
  runCli,
  startProcess,
  writeBrokerage,
  type RunningProcess,
  type Workspace,
} from '../daemon/daemon.fixtures';

jest.setTimeout(120_000);

// A worker as deploy/systemd/cash-offer-sync-worker@.service runs it: LEDGER_URL and no LEDGER_PATH,
// in a working directory that is the release's (read-only under ProtectSystem=strict). Run so, the
// worker made `data/` there before anything else, and failed to start: "EACCES: permission denied,
// mkdir '/opt/cash-offer-sync/data'" (found installing from deploy/README.md); a SIGHUP wrote the
// reload verdict there too, which no CLI reads on PostgreSQL (it finds no pid file).
describe('a worker run as its systemd unit runs it', () => {
  let ws: Workspace;
  let db: TestPostgresDatabase;
  let release: string;
  let worker: RunningProcess | undefined;
  beforeEach(async () => {
    ws = makeWorkspace();
    db = await createTestPostgresDatabase('unit');
    release = mkdtempSync(join(tmpdir(), 'cos-release-'));
  });
  afterEach(async () => {
    await worker?.stop();
    await db.drop();
    ws.cleanup();
    rmSync(release, { recursive: true, force: true });
  });

  it('writes nothing in its working directory: starts, is told by status, reloads on SIGHUP and stops', async () => {
    writeBrokerage(ws, brokerageConfig('alpha'));
    const env: NodeJS.ProcessEnv = { ...baseEnv(ws, 0, ['alpha']), LEDGER_URL: db.url };
    delete env.LEDGER_PATH;
    worker = startProcess(MAIN_JS, env, release);
    await waitFor(() => worker!.stdout().includes('"listening on') || worker!.child.exitCode !== null, {
      what: 'the worker to listen',
      ...DAEMON_WAIT,
      timeoutMs: 60_000,
    });
    expect(worker.stderr()).toBe('');
    expect(worker.child.exitCode).toBeNull();
    worker.child.kill('SIGHUP');
    await waitFor(() => worker!.stdout().includes('config reloaded'), {
      what: 'the reload',
      ...DAEMON_WAIT,
    });
    // No pid file on PostgreSQL: status tells the workers by their heartbeats ("Daemon: not running"
    // was said beside two live workers).
    const running = await runCli(['status'], env);
    expect(running.stdout).toMatch(/^Workers: 1 alive on the PostgreSQL ledger \(\S+\/\d+#\w+\)$/m);
    // The CLI has no pid file to signal on PostgreSQL: it says how the workers are reloaded.
    const reload = await runCli(['reload-config'], env);
    expect(reload.code).toBe(1);
    expect(reload.stderr).toContain(
      "each worker reloads on its own SIGHUP: systemctl reload 'cash-offer-sync-worker@*'",
    );
    worker.child.kill('SIGTERM');
    expect(await worker.exited).toEqual({ code: 0, signal: null });
    expect(worker.stdout()).toContain('stopped (SIGTERM)');
    // A clean stop removes its heartbeat at once.
    expect((await runCli(['status'], env)).stdout).toMatch(
      /^Workers: none alive on the PostgreSQL ledger \(no heartbeat in the last 30 s\)$/m,
    );
    expect(worker.stdout()).not.toContain('reload verdict');
    expect(readdirSync(release)).toEqual([]);
  });
});

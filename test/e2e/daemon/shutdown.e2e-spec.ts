import {
  DAEMON_WAIT,
  baseEnv,
  brokerageConfig,
  logLines,
  makeWorkspace,
  readEvents,
  runCli,
  startHarness,
  writeBrokerage,
  type RunningProcess,
  type Workspace,
} from './daemon.fixtures';
import { waitFor } from '../../support/wait-for';
import type { RunJson } from '../../../src/cli/commands/runs.command';

jest.setTimeout(60_000);

const PAGES = 30;

// SIGTERM mid-run: the handler stops at a page boundary, the run is recorded as interrupted, the
// process exits 0; a restart finishes the work from the checkpoint, with no page lost or done twice.
describe('daemon shutdown', () => {
  let ws: Workspace;
  let daemon: RunningProcess | undefined;
  beforeEach(() => (ws = makeWorkspace()));
  afterEach(async () => {
    await daemon?.stop();
    daemon = undefined;
    ws.cleanup();
  });

  it('marks the run interrupted on SIGTERM and a restart finishes the work exactly once', async () => {
    // Only the marketplace job runs often enough to matter here.
    writeBrokerage(ws, brokerageConfig('alpha', { marketplace: '* * * * * *', outboxDrain: '0 0 1 1 *' }));
    const env = { HARNESS_PAGES: String(PAGES) };
    daemon = (await startHarness(ws, ['alpha'], env)).daemon;
    await waitFor(() => readEvents(ws).filter((e) => e.type === 'page').length >= 3, {
      what: 'three pages',
      ...DAEMON_WAIT,
    });

    daemon.child.kill('SIGTERM');
    expect(await daemon.exited).toEqual({ code: 0, signal: null });
    const messages = logLines(daemon).map((l) => String(l.msg));
    expect(messages.some((m) => /^shutting down: aborting 1 running job\(s\)/.test(m))).toBe(true);
    expect(messages.some((m) => m.startsWith('run interrupted in '))).toBe(true);
    const firstPages = readEvents(ws).filter((e) => e.type === 'page').length;
    expect(firstPages).toBeLessThan(PAGES);

    const cliEnv = baseEnv(ws, 0, ['alpha']);
    const afterStop = JSON.parse((await runCli(['runs', '--json'], cliEnv)).stdout) as { runs: RunJson[] };
    expect(afterStop.runs).toHaveLength(1);
    expect(afterStop.runs[0]).toMatchObject({
      status: 'interrupted',
      job: 'marketplace',
      counts: { read: firstPages },
    });

    daemon = (await startHarness(ws, ['alpha'], env)).daemon;
    await waitFor(
      () =>
        readEvents(ws).some(
          (e) =>
            e.job === 'marketplace' && e.type === 'end' && e.read !== undefined && e.read > 0 && !e.aborted,
        ),
      { what: 'the restarted run to finish', ...DAEMON_WAIT, timeoutMs: 30_000 },
    );
    daemon.child.kill('SIGTERM');
    expect((await daemon.exited).code).toBe(0);

    const pages = readEvents(ws)
      .filter((e) => e.type === 'page')
      .map((e) => e.page);
    expect(pages).toEqual(Array.from({ length: PAGES }, (_, i) => i));
    const runs = (
      JSON.parse((await runCli(['runs', '--json', '--job', 'marketplace'], cliEnv)).stdout) as {
        runs: RunJson[];
      }
    ).runs;
    const finished = runs.find((r) => r.status === 'succeeded' && r.counts.read > 0);
    expect(finished?.counts.read).toBe(PAGES - firstPages);
    expect(runs.some((r) => r.status === 'running')).toBe(false);
  });
});

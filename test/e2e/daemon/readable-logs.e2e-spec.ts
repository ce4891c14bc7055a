import {
  DAEMON_WAIT,
  brokerageConfig,
  logLines,
  makeWorkspace,
  readEvents,
  startHarness,
  writeBrokerage,
  type RunningProcess,
  type Workspace,
} from './daemon.fixtures';
import { waitFor } from '../../support/wait-for';

jest.setTimeout(60_000);

// At LOG_LEVEL=info the log says what changed, not that nothing did: no Nest module lines, no
// "run started", runs that changed nothing at debug; start and SIGTERM are logged.
describe('readable logs', () => {
  let ws: Workspace;
  let daemon: RunningProcess | undefined;
  beforeEach(() => (ws = makeWorkspace()));
  afterEach(async () => {
    await daemon?.stop();
    ws.cleanup();
  });

  it('logs the run that changed something, not the empty ones, and the start and the stop', async () => {
    writeBrokerage(ws, brokerageConfig('alpha', { marketplace: '* * * * * *' }));
    // One page: the first run updates it, every later run finds nothing to do.
    const started = await startHarness(ws, ['alpha'], { HARNESS_PAGES: '1' });
    daemon = started.daemon;
    const marketplaceRuns = () =>
      readEvents(ws).filter((e) => e.type === 'end' && e.job === 'marketplace').length;
    await waitFor(() => marketplaceRuns() >= 4, { what: 'four marketplace runs', ...DAEMON_WAIT });
    daemon.child.kill('SIGTERM');
    expect((await daemon.exited).code).toBe(0);

    const lines = logLines(daemon);
    const messages = lines.map((l) => String(l.msg));
    expect(
      lines.filter((l) => ['InstanceLoader', 'RoutesResolver', 'RouterExplorer'].includes(String(l.context))),
    ).toEqual([]);
    expect(messages.filter((m) => m.includes('run started'))).toEqual([]);
    const runLines = lines.filter((l) => l.context === 'JobRunner' && l.job === 'marketplace');
    expect(runLines.map((l) => l.msg)).toEqual([
      expect.stringMatching(/^run succeeded in .*\(read 1, created 0, updated 1/),
    ]);
    expect(messages.some((m) => m.startsWith('listening on'))).toBe(true);
    expect(messages).toContain('SIGTERM: stopping; running jobs get up to 25000 ms to reach a checkpoint');
    expect(messages[messages.length - 1]).toBe('stopped (SIGTERM)');
    expect(lines.length).toBeLessThan(12);
  });
});

import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  DAEMON_WAIT,
  baseEnv,
  brokerageConfig,
  logLines,
  makeWorkspace,
  readEvents,
  runCli,
  secretsOf,
  startHarness,
  writeBrokerage,
  type HarnessEvent,
  type RunningProcess,
  type Workspace,
} from './daemon.fixtures';
import { waitFor } from '../../support/wait-for';

jest.setTimeout(60_000);

const EVERY_SECOND = { marketplace: '* * * * * *', outboxDrain: '* * * * * *' };

// Start and end (or error) of each run of one (brokerage, job) must strictly alternate.
function assertNoOverlap(events: HarnessEvent[]): void {
  const open = new Map<string, number | null>();
  for (const event of events) {
    if (event.type === 'page') continue;
    const key = `${event.brokerageId}:${event.job}`;
    if (event.type === 'start') {
      expect(open.has(key) ? `${key} started while run ${open.get(key)} was running` : 'ok').toBe('ok');
      open.set(key, event.runId);
    } else {
      open.delete(key);
    }
  }
}

const count = (
  events: HarnessEvent[],
  brokerageId: string,
  job: string,
  type: HarnessEvent['type'],
): number => events.filter((e) => e.brokerageId === brokerageId && e.job === job && e.type === type).length;

describe('daemon scheduler', () => {
  let ws: Workspace;
  let daemon: RunningProcess | undefined;
  beforeEach(() => (ws = makeWorkspace()));
  afterEach(async () => {
    await daemon?.stop();
    daemon = undefined;
    ws.cleanup();
  });

  it('never overlaps runs, backs a failing job off while others run, and answers /metrics and /health', async () => {
    writeBrokerage(ws, brokerageConfig('alpha', EVERY_SECOND));
    writeBrokerage(ws, brokerageConfig('beta', EVERY_SECOND));
    // Each marketplace run walks 12 pages of 150 ms, longer than the 1 s cron interval.
    const started = await startHarness(ws, ['alpha', 'beta'], {
      HARNESS_FAIL: 'beta',
      HARNESS_PAGES: '12',
      HARNESS_LEAK: '1',
    });
    daemon = started.daemon;
    // Started without npm start's heap flag, the daemon says how to start it.
    expect(
      logLines(daemon).some((l) => l.level === 40 && String(l.msg).includes('--max-old-space-size=512')),
    ).toBe(true);

    await waitFor(() => count(readEvents(ws), 'beta', 'outbox-drain', 'error') >= 3, {
      what: 'three failures of beta',
      ...DAEMON_WAIT,
      timeoutMs: 30_000,
    });
    await waitFor(() => count(readEvents(ws), 'alpha', 'marketplace', 'end') >= 1, {
      what: 'a full marketplace run',
      ...DAEMON_WAIT,
      timeoutMs: 30_000,
    });
    const events = readEvents(ws);
    assertNoOverlap(events);
    const logs = logLines(daemon);
    const messages = logs.map((l) => String(l.msg));
    expect(messages).toContain(
      'skipped marketplace for alpha: a run of the same brokerage and job is still in progress',
    );
    expect(messages.some((m) => /^backing off outbox-drain for beta after \d failure/.test(m))).toBe(true);
    // The failing job skipped ticks; the healthy one kept its pace.
    expect(count(events, 'alpha', 'outbox-drain', 'end')).toBeGreaterThan(
      count(events, 'beta', 'outbox-drain', 'error'),
    );
    expect(messages.some((m) => m.startsWith('backing off outbox-drain for alpha'))).toBe(false);

    // Brokerage, job and run id on the lines logged inside a run.
    const inRun = logs.find(
      (l) => l.context === 'Harness' && l.brokerageId === 'alpha' && l.job === 'outbox-drain',
    );
    expect(inRun).toMatchObject({ brokerageId: 'alpha', job: 'outbox-drain', runId: expect.any(Number) });
    // Secrets the handlers logged on purpose are scrubbed from every line.
    const output = daemon.stdout() + daemon.stderr();
    for (const value of [...Object.values(secretsOf('alpha')), ...Object.values(secretsOf('beta'))]) {
      expect(output).not.toContain(value);
    }
    expect(output).toContain('[REDACTED]');

    const metrics = await (await fetch(`${started.url}/metrics`)).text();
    expect(metrics).toMatch(
      /run_duration_seconds_count\{brokerage="alpha",job="outbox-drain",status="succeeded"\} [1-9]/,
    );
    expect(metrics).toMatch(
      /run_duration_seconds_count\{brokerage="beta",job="outbox-drain",status="failed"\} [1-9]/,
    );
    expect(metrics).toContain('outbox_depth{brokerage="alpha",state="pending"} 0');
    expect(metrics).toContain('inbox_depth{brokerage="beta",status="dead"} 0');
    expect(metrics).toContain('# TYPE cash_offer_sync_records_total counter');
    expect(metrics).toContain('# TYPE cash_offer_sync_api_calls_total counter');
    expect(metrics).toContain('# TYPE cash_offer_sync_webhook_events_total counter');
    // The process's own figures, started once by the entry point.
    expect(metrics).toContain('# TYPE cash_offer_sync_process_cpu_user_seconds_total counter');
    expect(metrics).toContain('# TYPE cash_offer_sync_nodejs_eventloop_lag_seconds gauge');

    const live = await fetch(`${started.url}/health/live`);
    expect(live.status).toBe(200);
    type JobHealth = { lastStatus: string; lastSuccessAt: string | null; consecutiveFailures: number };
    type Ready = {
      details: {
        ledger: { status: string };
        brokerages: { brokerages: Record<string, Record<string, JobHealth>> };
      };
    };
    // The run is recorded just after the handler's last event, so poll until the ledger has it.
    const body = await waitFor(
      async () => {
        const ready = await fetch(`${started.url}/health/ready`);
        const json = (await ready.json()) as Ready;
        return ready.status === 200 && json.details.brokerages.brokerages.alpha?.marketplace
          ? json
          : undefined;
      },
      { what: 'readiness with alpha marketplace', ...DAEMON_WAIT },
    );
    expect(body.details.ledger.status).toBe('up');
    expect(body.details.brokerages).toMatchObject({
      status: 'up',
      brokerages: {
        alpha: {
          marketplace: { lastSuccessAt: expect.any(String) },
          'outbox-drain': { lastStatus: 'succeeded' },
        },
        beta: {
          'outbox-drain': {
            lastStatus: 'failed',
            lastSuccessAt: null,
          },
        },
      },
    });

    // Backoff state is in readiness too: beta failed every time so far.
    expect(
      body.details.brokerages.brokerages.beta['outbox-drain'].consecutiveFailures,
    ).toBeGreaterThanOrEqual(3);

    daemon.child.kill('SIGTERM');
    expect(await daemon.exited).toEqual({ code: 0, signal: null });
  });

  it('reload adds, changes and removes brokerages without touching the others', async () => {
    writeBrokerage(ws, brokerageConfig('alpha', EVERY_SECOND));
    writeBrokerage(ws, brokerageConfig('beta', EVERY_SECOND));
    writeBrokerage(ws, brokerageConfig('delta', EVERY_SECOND));
    // Long marketplace runs (120 pages x 150 ms) so alpha's and beta's are still running when the
    // reload lands: the CLI that sends it takes seconds to start on a loaded machine (at 40 pages,
    // beta's run sometimes ended before it, and was not aborted).
    const started = await startHarness(ws, ['alpha', 'beta', 'delta', 'gamma'], { HARNESS_PAGES: '120' });
    daemon = started.daemon;
    const alphaRun = await waitFor(
      () =>
        readEvents(ws).find(
          (e) => e.brokerageId === 'alpha' && e.job === 'marketplace' && e.type === 'start',
        ),
      { what: 'alpha marketplace to start', ...DAEMON_WAIT },
    );
    await waitFor(() => count(readEvents(ws), 'beta', 'marketplace', 'start') > 0, {
      what: 'beta marketplace to start',
      ...DAEMON_WAIT,
    });

    rmSync(join(ws.configDir, 'beta.yaml'));
    writeBrokerage(ws, brokerageConfig('gamma', EVERY_SECOND));
    writeBrokerage(ws, brokerageConfig('delta', { ...EVERY_SECOND, outboxDrain: '*/2 * * * * *' }));
    const reloadAt = Date.now();
    // Through the CLI this time (it validates, sends SIGHUP to the pid in the pid file, and waits for
    // the daemon's verdict).
    const cliEnv = baseEnv(ws, started.port, ['alpha', 'beta', 'delta', 'gamma']);
    delete cliEnv.LOG_LEVEL;
    const reload = await runCli(['reload-config'], cliEnv);
    expect(reload.stdout).toMatch(
      /^daemon pid \d+: the daemon reloaded the config: added \[gamma\], changed \[delta\], removed \[beta\]/,
    );
    expect(reload.code).toBe(0);
    const proc = daemon;
    await waitFor(() => logLines(proc).find((l) => String(l.msg).startsWith('config reloaded')), {
      what: 'the reload to be applied',
      ...DAEMON_WAIT,
    });
    await waitFor(() => count(readEvents(ws), 'gamma', 'outbox-drain', 'end') >= 2, {
      what: 'gamma to run twice',
      ...DAEMON_WAIT,
    });
    const settledAt = Date.now();
    await waitFor(
      () =>
        readEvents(ws).some((e) => e.brokerageId === 'alpha' && e.job === 'outbox-drain' && e.at > settledAt),
      { what: 'alpha to keep running after the reload', ...DAEMON_WAIT },
    );

    const messages = logLines(daemon).map((l) => String(l.msg));
    expect(messages).toContain(
      'config reloaded: 3 brokerage(s); added [gamma], changed [delta], removed [beta]',
    );
    const scheduled = (id: string): number =>
      messages.filter((m) => m === `scheduled brokerage ${id}`).length;
    expect([scheduled('alpha'), scheduled('beta'), scheduled('delta'), scheduled('gamma')]).toEqual([
      1, 1, 2, 1,
    ]);

    const events = readEvents(ws);
    assertNoOverlap(events);
    // Alpha's marketplace run that was in flight during the reload was not aborted.
    const alphaEnd = events.find(
      (e) => e.runId === alphaRun.runId && e.job === 'marketplace' && e.type !== 'start',
    );
    expect(alphaEnd === undefined || alphaEnd.aborted === false).toBe(true);
    // Beta's in-flight run was aborted, and beta never started again.
    expect(events.filter((e) => e.brokerageId === 'beta' && e.type === 'start' && e.at > settledAt)).toEqual(
      [],
    );
    expect(
      events.find((e) => e.brokerageId === 'beta' && e.job === 'marketplace' && e.type === 'end')?.aborted,
    ).toBe(true);
    expect(events.filter((e) => e.brokerageId === 'gamma' && e.at < reloadAt)).toEqual([]);

    // A bad file on reload: that brokerage alone is unready until it is fixed; the others keep running
    // and the process stays ready.
    writeFileSync(join(ws.configDir, 'omega.yaml'), 'id: omega\ncrm: {}\n');
    daemon.child.kill('SIGHUP');
    const url = started.url;
    const omegaUnready = await waitFor(
      async () => {
        const res = await fetch(`${url}/health/ready/omega`);
        return res.status === 503 ? ((await res.json()) as { problems: string[] }) : undefined;
      },
      { what: 'omega to be unready', ...DAEMON_WAIT },
    );
    expect(omegaUnready.problems.join('\n')).toContain('omega.yaml (omega): cashOffer');
    const ready = await fetch(`${url}/health/ready`);
    expect(ready.status).toBe(200);
    const readyBody = (await ready.json()) as {
      details: { brokerages: { unready: Record<string, string[]> } };
    };
    expect(Object.keys(readyBody.details.brokerages.unready)).toEqual(['omega']);
    expect((await fetch(`${url}/health/ready/alpha`)).status).toBe(200);
    const beforeFix = Date.now();
    await waitFor(
      () =>
        readEvents(ws).some((e) => e.brokerageId === 'alpha' && e.job === 'outbox-drain' && e.at > beforeFix),
      { what: 'alpha to keep running on the last good config', ...DAEMON_WAIT },
    );
    rmSync(join(ws.configDir, 'omega.yaml'));
    daemon.child.kill('SIGHUP');
    await waitFor(async () => (await fetch(`${url}/health/ready/omega`)).status === 404, {
      what: 'omega to be gone',
      ...DAEMON_WAIT,
    });

    daemon.child.kill('SIGTERM');
    expect((await daemon.exited).code).toBe(0);
  });
});

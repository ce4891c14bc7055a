import { openLedger } from '../../../src/ledger/ledger';
import {
  DAEMON_WAIT,
  brokerageConfig,
  makeWorkspace,
  readEvents,
  runCli,
  startHarness,
  writeBrokerage,
  type RunningProcess,
  type Workspace,
} from './daemon.fixtures';
import { waitFor } from '../../support/wait-for';

jest.setTimeout(90_000);

const EVERY_SECOND = { marketplace: '* * * * * *', outboxDrain: '* * * * * *' };

// Pause and resume from the CLI against a running daemon: stored in the ledger, so cron skips the
// paused jobs at once, a restart keeps the pause, `status` and /metrics show it.
describe('pause and resume', () => {
  let ws: Workspace;
  let daemon: RunningProcess | undefined;
  beforeEach(() => (ws = makeWorkspace()));
  afterEach(async () => {
    await daemon?.stop();
    daemon = undefined;
    ws.cleanup();
  });

  const starts = (brokerageId: string, job?: string) =>
    readEvents(ws).filter(
      (e) => e.type === 'start' && e.brokerageId === brokerageId && (job === undefined || e.job === job),
    ).length;

  it('stops a paused brokerage or job, across a restart, and shows it in status and /metrics', async () => {
    writeBrokerage(ws, brokerageConfig('alpha', EVERY_SECOND));
    writeBrokerage(ws, brokerageConfig('beta', EVERY_SECOND));
    const started = await startHarness(ws, ['alpha', 'beta'], { HARNESS_PAGES: '1' });
    daemon = started.daemon;
    const env = cliEnv(ws, started.port);
    await waitFor(() => starts('alpha') > 0 && starts('beta') > 0, {
      what: 'both brokerages to run',
      ...DAEMON_WAIT,
    });

    const paused = await runCli(['pause', '--brokerage', 'alpha', '--reason', 'CRM migration'], env);
    expect(paused.code).toBe(0);
    expect(paused.stdout).toMatch(/paused brokerage alpha \(all jobs\)/);
    const jobPause = await runCli(['pause', '--brokerage', 'beta', '--job', 'marketplace'], env);
    expect(jobPause.code).toBe(0);

    // Once the pauses are in, alpha starts nothing more and beta only its outbox-drain.
    await waitForQuiet(ws, () => [starts('alpha'), starts('beta', 'marketplace')]);
    const betaDrains = starts('beta', 'outbox-drain');
    await waitFor(() => starts('beta', 'outbox-drain') > betaDrains + 1, {
      what: 'beta outbox-drain to keep running',
      ...DAEMON_WAIT,
    });

    const metrics = await (await fetch(`${started.url}/metrics`)).text();
    expect(metrics).toContain('cash_offer_sync_job_paused{brokerage="alpha",job="marketplace"} 1');
    expect(metrics).toContain('cash_offer_sync_job_paused{brokerage="beta",job="marketplace"} 1');
    expect(metrics).toContain('cash_offer_sync_job_paused{brokerage="beta",job="outbox-drain"} 0');

    const status = await runCli(['status', '--json'], env);
    const brokerages = (JSON.parse(status.stdout) as { brokerages: StatusJson[] }).brokerages;
    const alpha = brokerages.find((b) => b.id === 'alpha')!;
    expect(alpha.paused).toMatchObject({ reason: 'CRM migration' });
    expect(alpha.jobs.every((j) => j.paused !== null)).toBe(true);
    const beta = brokerages.find((b) => b.id === 'beta')!;
    expect(beta.paused).toBeNull();
    expect(beta.jobs.find((j) => j.job === 'marketplace')?.paused).not.toBeNull();
    expect(beta.jobs.find((j) => j.job === 'outbox-drain')?.paused).toBeNull();
    expect((await runCli(['status', '--brokerage', 'alpha'], env)).stdout).toMatch(
      /Brokerage alpha \(.*alpha\.yaml, PAUSED since .*: CRM migration\)/,
    );

    // A one-off run of a paused job is refused unless forced.
    const refused = await runCli(['sync', '--once', '--brokerage', 'alpha', '--job', 'marketplace'], env);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(/the brokerage is paused since .* \(CRM migration\); resume it to run/);
    expect(refused.stdout).toMatch(/--force/);

    // A restart keeps the pause.
    await stopGracefully(daemon);
    const before = [starts('alpha'), starts('beta', 'marketplace')];
    const restarted = await startHarness(ws, ['alpha', 'beta'], { HARNESS_PAGES: '1' });
    daemon = restarted.daemon;
    const drains = starts('beta', 'outbox-drain');
    await waitFor(() => starts('beta', 'outbox-drain') > drains + 2, {
      what: 'beta to run after the restart',
      ...DAEMON_WAIT,
    });
    expect([starts('alpha'), starts('beta', 'marketplace')]).toEqual(before);

    // Resuming the brokerage leaves beta's own job pause alone.
    const resumed = await runCli(['resume', '--brokerage', 'alpha'], {
      ...env,
      ...cliEnv(ws, restarted.port),
    });
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toMatch(/resumed brokerage alpha/);
    await waitFor(() => starts('alpha', 'marketplace') > before[0], {
      what: 'alpha to run again',
      ...DAEMON_WAIT,
    });
    expect(starts('beta', 'marketplace')).toBe(before[1]);
  });

  it('refuses an unknown brokerage or job', async () => {
    writeBrokerage(ws, brokerageConfig('alpha'));
    // As the daemon's first start would (the CLI refuses a missing ledger).
    await (await openLedger({ databasePath: ws.ledgerPath })).close();
    const env = cliEnv(ws, 0);
    const unknown = await runCli(['pause', '--brokerage', 'nosuch'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no brokerage "nosuch" is configured in .* \(known: alpha\)/);
    const badJob = await runCli(['pause', '--brokerage', 'alpha', '--job', 'nosuch'], env);
    expect(badJob.code).toBe(1);
    expect(badJob.stderr).toMatch(/--job must be one of/);
  });

  it('pauses and resumes a brokerage whose file this shell cannot load, and names it among the known', async () => {
    writeBrokerage(ws, brokerageConfig('alpha'));
    writeBrokerage(ws, brokerageConfig('beta'));
    await (await openLedger({ databasePath: ws.ledgerPath })).close();
    // The daemon's environment holds beta's CRM token; the operator's shell does not.
    const { BETA_CRM_TOKEN: _notHere, ...env } = cliEnv(ws, 0);

    const paused = await runCli(['pause', '--brokerage', 'beta', '--reason', 'key rotation'], env);
    expect(paused.stderr).toBe('');
    expect(paused.code).toBe(0);
    expect(paused.stdout).toMatch(/paused brokerage beta \(all jobs\)/);
    const resumed = await runCli(['resume', '--brokerage', 'beta'], env);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toMatch(/resumed brokerage beta/);

    const typo = await runCli(['pause', '--brokerage', 'bet'], env);
    expect(typo.code).toBe(1);
    expect(typo.stderr).toContain('(known: alpha, beta (its file does not load))');
    // A run needs the brokerage's secrets: what keeps its file from loading is named.
    const run = await runCli(['sync', '--brokerage', 'beta', '--job', 'marketplace'], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/brokerage "beta" is not loaded: .*BETA_CRM_TOKEN, which is not set/);
  });
});

interface StatusJson {
  id: string;
  paused: { reason: string } | null;
  jobs: { job: string; paused: { reason: string } | null }[];
}

function cliEnv(ws: Workspace, port: number): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    TZ: 'UTC',
    CONFIG_DIR: ws.configDir,
    LEDGER_PATH: ws.ledgerPath,
    ADMIN_PORT: String(port),
    ALPHA_CASH_OFFER_KEY: 'k',
    ALPHA_CRM_TOKEN: 't',
    ALPHA_WEBHOOK_SECRET: 'whsec-alpha-Zq8xY2mN4pR6tV0wK3',
    BETA_CASH_OFFER_KEY: 'k',
    BETA_CRM_TOKEN: 't',
    BETA_WEBHOOK_SECRET: 'whsec-beta-Zq8xY2mN4pR6tV0wK3',
  };
}

// A run already started when the pause landed may still finish; after that the counts stay put for
// three cron ticks in a row.
async function waitForQuiet(ws: Workspace, counts: () => number[]): Promise<void> {
  let last = JSON.stringify(counts());
  let stableSince = Date.now();
  await waitFor(
    () => {
      const now = JSON.stringify(counts());
      if (now !== last) {
        last = now;
        stableSince = Date.now();
      }
      return Date.now() - stableSince > 3_000;
    },
    { what: `the paused jobs to stop in ${ws.dir}`, ...DAEMON_WAIT, timeoutMs: 20_000 },
  );
}

async function stopGracefully(daemon: RunningProcess): Promise<void> {
  daemon.child.kill('SIGTERM');
  await daemon.exited;
}

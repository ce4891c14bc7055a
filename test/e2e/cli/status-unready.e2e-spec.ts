import { openLedger } from '../../../src/ledger/ledger';
import { waitFor } from '../../support/wait-for';
import {
  baseEnv,
  brokerageConfig,
  DAEMON_WAIT,
  makeWorkspace,
  readEvents,
  runCli,
  startHarness,
  writeBrokerage,
  type RunningProcess,
  type Workspace,
} from '../daemon/daemon.fixtures';

jest.setTimeout(90_000);

interface StatusJson {
  brokerages: {
    id: string;
    loadProblems: string[];
    daemonLoad: { missingHere: string[]; daemonRunsIt: boolean; daemonLastRunAt: string | null } | null;
  }[];
}

// A brokerage whose file does not load (here: its secrets are not set in this shell) is a problem
// for a person: `status` shows it first, says why and exits non-zero (the compiled CLI).
describe('cli status with a brokerage that failed to load', () => {
  let ws: Workspace;

  beforeAll(async () => {
    ws = makeWorkspace();
    // The CLI never creates a ledger; the daemon's first start would.
    await (await openLedger({ databasePath: ws.ledgerPath })).close();
    writeBrokerage(ws, brokerageConfig('acme'));
    writeBrokerage(ws, brokerageConfig('broken'));
  });

  afterAll(() => ws.cleanup());

  it('lists it first as failed to load, naming the problem, and exits 1', async () => {
    const env = baseEnv(ws, 0, ['acme']); // broken's variables are not set
    const { code, stdout } = await runCli(['status'], env);
    expect(code).toBe(1);
    const first = stdout.split('\n').find((line) => line.startsWith('Brokerage '));
    expect(first).toContain('Brokerage broken (FAILED TO LOAD');
    expect(first).toContain('BROKEN_CASH_OFFER_KEY');
    expect(stdout).toContain('Brokerage acme (');
    const json = await runCli(['status', '--json'], env);
    expect(json.code).toBe(1);
    const broken = (JSON.parse(json.stdout) as StatusJson).brokerages[0];
    expect(broken.id).toBe('broken');
    expect(broken.loadProblems.join(' ')).toContain('BROKEN_CASH_OFFER_KEY');
    // Only this shell's variables are missing, and the ledger shows no daemon running it either.
    expect(broken.daemonLoad).toMatchObject({
      missingHere: expect.arrayContaining(['BROKEN_CASH_OFFER_KEY is not set here']),
      daemonRunsIt: false,
      daemonLastRunAt: null,
    });
    expect(first).toContain('the daemon has not run it in the last 15 min either');
  });

  it('exits 0 when every brokerage loads', async () => {
    const { code } = await runCli(['status', '--brokerage', 'acme'], baseEnv(ws, 0, ['acme']));
    expect(code).toBe(0);
  });
});

// The daemon has the brokerage's secrets; the operator's shell does not. `status` there must not
// contradict the daemon: it says the file loads in the daemon (its runs in the ledger) and what this
// shell lacks, exit 0; once the daemon stops running it, or the file itself is wrong, exit 1.
describe('cli status in a shell without the secrets the daemon has', () => {
  let ws: Workspace;
  let daemon: RunningProcess | undefined;
  // The operator's shell: the same config and ledger, none of acme's variables.
  const shell = () => baseEnv(ws, 0, []);
  const status = async () => {
    const text = await runCli(['status'], shell());
    const json = await runCli(['status', '--json'], shell());
    const acme = (JSON.parse(json.stdout) as StatusJson).brokerages.find((b) => b.id === 'acme');
    return {
      text,
      json,
      acme,
      line: text.stdout.split('\n').find((l) => l.startsWith('Brokerage acme')) ?? '',
    };
  };

  beforeEach(() => {
    ws = makeWorkspace();
    writeBrokerage(ws, brokerageConfig('acme', { outboxDrain: '* * * * * *' }));
  });
  afterEach(async () => {
    await daemon?.stop();
    daemon = undefined;
    ws.cleanup();
  });

  it('says the daemon runs it and what this shell lacks, exit 0; exit 1 once that daemon has stopped', async () => {
    daemon = (await startHarness(ws, ['acme'])).daemon;
    await waitFor(() => readEvents(ws).some((e) => e.type === 'end' && e.brokerageId === 'acme'), {
      what: 'the daemon to run acme',
      ...DAEMON_WAIT,
    });

    const running = await status();
    expect(running.text.code).toBe(0);
    expect(running.line).toMatch(
      /^Brokerage acme \(loads in the daemon \(last run \d+ s ago\), not in this shell: ACME_CASH_OFFER_KEY is not set here; ACME_CRM_TOKEN is not set here; ACME_WEBHOOK_SECRET is not set here\)/,
    );
    expect(running.json.code).toBe(0);
    expect(running.acme?.loadProblems.join(' ')).toContain('ACME_CASH_OFFER_KEY'); // as before
    expect(running.acme?.daemonLoad).toMatchObject({
      daemonRunsIt: true,
      daemonLastRunAt: expect.any(String),
    });

    daemon.child.kill('SIGTERM');
    await daemon.exited;
    const stopped = await status();
    expect(stopped.text.code).toBe(1);
    expect(stopped.line).toContain(
      'Brokerage acme (FAILED TO LOAD in this shell (ACME_CASH_OFFER_KEY is not set here',
    );
    expect(stopped.line).toMatch(/the daemon that ran it \(\S+\/\d+\) has stopped/);
    expect(stopped.acme?.daemonLoad).toMatchObject({ daemonRunsIt: false });
  });

  it('exits 1 when the file itself is wrong, whatever the daemon ran', async () => {
    daemon = (await startHarness(ws, ['acme'])).daemon;
    await waitFor(() => readEvents(ws).some((e) => e.type === 'end' && e.brokerageId === 'acme'), {
      what: 'the daemon to run acme',
      ...DAEMON_WAIT,
    });
    writeBrokerage(ws, { ...brokerageConfig('acme'), colour: 'blue' });
    const wrong = await status();
    expect(wrong.text.code).toBe(1);
    expect(wrong.line).toContain('Brokerage acme (FAILED TO LOAD, not synced:');
    expect(wrong.line).toContain('colour is not a known setting');
    expect(wrong.acme?.daemonLoad).toBeNull();
  });
});

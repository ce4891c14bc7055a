import { openLedger } from '../../../src/ledger/ledger';
import {
  baseEnv,
  brokerageConfig,
  makeWorkspace,
  runCli,
  writeBrokerage,
  type Workspace,
} from '../daemon/daemon.fixtures';

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
    const broken = (JSON.parse(json.stdout) as { brokerages: { id: string; loadProblems: string[] }[] })
      .brokerages[0];
    expect(broken.id).toBe('broken');
    expect(broken.loadProblems.join(' ')).toContain('BROKEN_CASH_OFFER_KEY');
  });

  it('exits 0 when every brokerage loads', async () => {
    const { code } = await runCli(['status', '--brokerage', 'acme'], baseEnv(ws, 0, ['acme']));
    expect(code).toBe(0);
  });
});

import { existsSync } from 'node:fs';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { ManualClock } from '../../../src/common/clock';
import { openLedger } from '../../../src/ledger/ledger';
import {
  baseEnv,
  brokerageConfig,
  CLI_JS,
  makeWorkspace,
  ROOT,
  runCli,
  writeBrokerage,
  type Workspace,
} from './daemon.fixtures';

jest.setTimeout(60_000);

const LONG_MESSAGE =
  'StreetName is 57 characters; the service allows 50. Shorten it on the deal (property listing_street_name), then move the deal back to the trigger stage.';

// The operator's CLI on a seeded ledger: runs --failed/--changed, inbox with
// reasons, errors that wrap, EPIPE-safe output, non-zero exits for an unknown brokerage or a
// missing ledger (never creating one).
describe('cli: filters, reasons and honest exits', () => {
  let ws: Workspace;
  let env: NodeJS.ProcessEnv;
  const cli = (...args: string[]) => runCli(args, env);

  beforeAll(async () => {
    ws = makeWorkspace();
    writeBrokerage(ws, brokerageConfig('acme'));
    env = baseEnv(ws, 0, ['acme']);
    delete env.LOG_LEVEL;
    const clock = new ManualClock(new Date('2026-03-01T09:00:00Z'));
    const ledger = await openLedger({ databasePath: ws.ledgerPath, clock });
    try {
      const zero = { read: 0, created: 0, updated: 0, unchanged: 0, failed: 0 };
      for (let i = 0; i < 30; i++) {
        const run = await ledger.runs.start('acme', 'crm-changes');
        await ledger.runs.finish(run.id, { status: 'succeeded', counts: zero });
      }
      // Enough empty runs that `runs` prints far more than a pipe holds, so `head` closes it mid-write.
      await ledger.dataSource.query(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)
         INSERT INTO runs (brokerage_id, job, status, started_at, finished_at) SELECT 'acme', 'inbox-drain', 'succeeded', '2026-03-01 08:00:00.000', '2026-03-01 08:00:01.000' FROM n`,
      );
      const changed = await ledger.runs.start('acme', 'marketplace');
      await ledger.runs.finish(changed.id, { status: 'succeeded', counts: { ...zero, read: 9, created: 2 } });
      const failed = await ledger.runs.start('acme', 'outbox-drain');
      await ledger.runs.finish(failed.id, { status: 'failed', counts: zero, error: 'service unavailable' });
      await ledger.recordErrors.record({
        brokerageId: 'acme',
        recordKind: 'deal',
        recordRef: 'deal-901',
        field: 'StreetName',
        message: LONG_MESSAGE,
      });
      for (const [key, end] of [
        ['e-dead', 'dead'],
        ['e-flag', 'flagged'],
      ] as const) {
        await ledger.inbox.storeIfNew({
          brokerageId: 'acme',
          dedupeKey: key,
          eventType: 'new_offer',
          payload: '{}',
        });
        const [event] = await ledger.inbox.claimDue(1, { brokerageId: 'acme' });
        if (end === 'dead') await ledger.inbox.deadLetter(event.id, 'gave up after 8 attempts: HubSpot 500');
        else await ledger.inbox.flag(event.id, 'offer of a listing this brokerage does not own');
      }
    } finally {
      await ledger.close();
    }
  });

  afterAll(() => ws.cleanup());

  it('runs --failed and --changed leave the empty runs out', async () => {
    const failed = JSON.parse((await cli('runs', '--failed', '--json')).stdout) as {
      runs: { job: string }[];
    };
    expect(failed.runs.map((r) => r.job)).toEqual(['outbox-drain']);
    const changed = JSON.parse((await cli('runs', '--changed', '--json')).stdout) as {
      runs: { job: string }[];
    };
    expect(changed.runs.map((r) => r.job)).toEqual(['marketplace']);
    expect((await cli('runs', '--changed')).stdout).toMatch(/marketplace\s+succeeded/);
  });

  it('inbox lists dead and flagged events with their reasons', async () => {
    const all = await cli('inbox');
    expect(all.code).toBe(0);
    expect(all.stdout).toContain('gave up after 8 attempts: HubSpot 500');
    expect(all.stdout).toContain('offer of a listing this brokerage does not own');
    const dead = JSON.parse((await cli('inbox', '--dead', '--json')).stdout) as {
      events: { status: string }[];
    };
    expect(dead.events.map((e) => e.status)).toEqual(['dead']);
    const flagged = await cli('inbox', '--flagged');
    expect(flagged.stdout).not.toContain('HubSpot 500');
    expect(flagged.stdout).toContain('flagged');
  });

  it('errors wraps a long message instead of cutting it', async () => {
    const { stdout } = await cli('errors');
    expect(stdout).not.toContain('…');
    const words = stdout.replace(/\s+/g, ' ');
    expect(words).toContain('move the deal back to the trigger stage.');
    expect(Math.max(...stdout.split('\n').map((l) => l.length))).toBeLessThan(150);
  });

  it('exits 1 for an unknown brokerage', async () => {
    for (const command of ['status', 'runs', 'errors', 'inbox']) {
      const result = await cli(command, '--brokerage', 'nosuch');
      expect([command, result.code]).toEqual([command, 1]);
      expect(result.stderr).toMatch(/no brokerage "nosuch" is configured .*\(known: acme\)/);
    }
  });

  it('exits 1 without creating a ledger when LEDGER_PATH names no file', async () => {
    const typo = join(ws.dir, 'ledgr.sqlite');
    for (const command of ['status', 'runs', 'pause']) {
      const result = await runCli([command, '--brokerage', 'acme'], { ...env, LEDGER_PATH: typo });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(
        /There is no ledger at .*ledgr\.sqlite \(LEDGER_PATH\)\. The CLI never creates one/,
      );
    }
    expect(existsSync(typo)).toBe(false);
  });

  it('stops quietly when its reader goes away (piped into head)', async () => {
    const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>(
      (done) =>
        execFile(
          'bash',
          ['-c', `set -o pipefail; node ${CLI_JS} runs --limit 10000 | head -n 2`],
          { cwd: ROOT, env },
          (error, out, err) => done({ code: error ? Number(error.code) : 0, stdout: out, stderr: err }),
        ),
    );
    expect(stderr).not.toMatch(/EPIPE|Error/);
    expect(stdout.split('\n').filter(Boolean)).toHaveLength(2);
    expect(code).toBe(0);
  });
});

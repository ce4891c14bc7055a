import { statSync } from 'node:fs';
import { join } from 'node:path';
import { ManualClock } from '../../../src/common/clock';
import { openLedger } from '../../../src/ledger';
import {
  DAEMON_WAIT,
  baseEnv,
  brokerageConfig,
  makeWorkspace,
  runCli,
  startHarness,
  writeBrokerage,
  type Workspace,
} from '../daemon/daemon.fixtures';
import { waitFor } from '../../support/wait-for';

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

  // The documented backup used to fail on a fresh install and wrote a 0644 file.
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

  const DAY = 86_400_000;
  const counts = { read: 1, created: 0, updated: 0, unchanged: 1, failed: 0 };

  // History written `ageDays` ago: finished runs, a done command, a processed event, a dead body.
  async function seedOldHistory(ageDays: number): Promise<void> {
    const clock = new ManualClock(new Date(Date.now() - ageDays * DAY));
    const ledger = await openLedger({ databasePath: ws.ledgerPath, clock });
    for (let i = 0; i < 4; i++) {
      const run = await ledger.runs.start('acme', 'marketplace');
      await ledger.runs.finish(run.id, { status: 'succeeded', counts });
    }
    const { command } = await ledger.outbox.enqueue({
      brokerageId: 'acme',
      idempotencyKey: 'old-create',
      operation: 'create_offer_request',
      recordRef: 'deal-1',
      payload: {},
    });
    await ledger.outbox.markSending(command.id);
    await ledger.outbox.complete(command.id, { ok: true });
    await ledger.inbox.storeIfNew({
      brokerageId: 'acme',
      dedupeKey: 'old',
      eventType: 'new_offer',
      payload: '{}',
    });
    const [event] = await ledger.inbox.claimDue(1);
    await ledger.inbox.markDone(event.id);
    await ledger.inbox.storeDeadLetter({
      brokerageId: 'acme',
      dedupeKey: 'malformed:old',
      reason: 'the body is not valid JSON',
      rawBody: '{',
    });
    await ledger.close();
  }

  async function remaining(): Promise<{ runs: number; outbox: number; inbox: number }> {
    const ledger = await openLedger({ databasePath: ws.ledgerPath });
    try {
      const inbox = await ledger.inbox.depth();
      return {
        runs: (await ledger.runs.list({ limit: 100 })).length,
        outbox: (await ledger.outbox.depth()).done,
        inbox: inbox.done + inbox.dead,
      };
    } finally {
      await ledger.close();
    }
  }

  // Without it the ledger grows for ever: LedgerRetention.prune used to exist with nothing calling it.
  it('prune deletes history past the retention ages and keeps the latest run of each job', async () => {
    await seedOldHistory(100);
    const dry = await runCli(['prune', '--days', '200', '--dead-days', '200', '--json'], env);
    expect(dry.code).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({ pruned: { runs: 0, outbox: 0, inbox: 0, deadInbox: 0 } });

    const answer = await runCli(['prune', '--json'], env);
    expect(answer.code).toBe(0);
    expect(JSON.parse(answer.stdout)).toEqual({
      retentionDays: 30,
      retentionDeadDays: 90,
      historyRetentionDays: 2555,
      pruned: { runs: 3, outbox: 1, inbox: 1, recordErrors: 0, deadInbox: 1, history: 0 },
    });
    expect(await remaining()).toEqual({ runs: 1, outbox: 0, inbox: 0 });
    const bad = await runCli(['prune', '--days', '0'], env);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('--days must be a whole number of days from 1 to 3650, got "0"');
  });

  it('the daemon prunes on its own schedule, from its start, with the ages from the environment', async () => {
    await seedOldHistory(10);
    const { daemon } = await startHarness(ws, ['acme'], { RETENTION_DAYS: '5', RETENTION_DEAD_DAYS: '8' });
    try {
      await waitFor(() => daemon.stdout().includes('pruned the ledger'), {
        what: 'the daemon to prune',
        ...DAEMON_WAIT,
      });
      expect(await remaining()).toEqual({ runs: 1, outbox: 0, inbox: 0 });
    } finally {
      await daemon.stop();
    }
  }, 30_000);
});

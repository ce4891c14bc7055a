import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../../src/common/clock';
import { Ledger, openLedger } from '../../../src/ledger/ledger';
import { outboxKey } from '../../../src/ledger/outbox-key';
import type { RunOwners } from '../../../src/ledger/run-owner';

// The daemon and the operator's `cli sync` are two processes on one SQLite ledger. A run, the outbox
// commands it is sending and the inbox events it is processing belong to their process until it is
// gone: the daemon's start-up recovery and the other process's next run of the same job leave them
// alone while it lives, and recover them once it is dead (the crash soak's operator actor found the
// daemon marking a live CLI run interrupted at start, and taking its claims).
// Operations on the two ledgers are awaited one after the other: two better-sqlite3 connections in one
// thread must not wait on each other's write transaction.
class TestOwners implements RunOwners {
  constructor(
    readonly self: string,
    private readonly living: Set<string>,
  ) {}

  alive(owner: string): boolean {
    return this.living.has(owner);
  }
}

describe('runs held by a live process on a shared SQLite ledger', () => {
  let dir: string;
  let daemon: Ledger;
  let cli: Ledger;
  let living: Set<string>;
  const clock = new ManualClock(new Date('2026-03-01T12:00:00.000Z'));

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'run-owners-'));
    const databasePath = join(dir, 'ledger.sqlite');
    living = new Set(['host/100', 'host/200']);
    daemon = await openLedger({ databasePath, clock, owners: new TestOwners('host/100', living) });
    cli = await openLedger({ databasePath, clock, owners: new TestOwners('host/200', living) });
  });
  afterEach(async () => {
    await cli.close();
    await daemon.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function cliMidRun(): Promise<{ runs: number[]; commandId: number; eventId: number }> {
    const outboxRun = await cli.runs.claim('b1', 'outbox-drain');
    const inboxRun = await cli.runs.claim('b1', 'inbox-drain');
    if (!('run' in outboxRun) || !('run' in inboxRun)) throw new Error('the CLI could not claim its runs');
    const { command } = await cli.outbox.enqueue({
      brokerageId: 'b1',
      idempotencyKey: outboxKey('b1', 'create_offer_request', 'deal-1'),
      operation: 'create_offer_request',
      recordRef: 'deal:deal-1',
      payload: {},
    });
    await cli.outbox.markSending(command.id);
    const { id: eventId } = await cli.inbox.storeIfNew({
      brokerageId: 'b1',
      dedupeKey: 'e1',
      eventType: 'new_offer',
      payload: '{}',
    });
    expect(await cli.inbox.claimDue(10, { brokerageId: 'b1' })).toHaveLength(1);
    return { runs: [outboxRun.run.id, inboxRun.run.id], commandId: command.id, eventId };
  }

  it("leaves a live CLI run and its claims alone at the daemon's start, and recovers a dead holder's", async () => {
    const work = await cliMidRun();
    // A daemon run of another brokerage, killed with the daemon (pid 300, gone).
    living.add('host/300');
    const dead = await openLedger({
      databasePath: join(dir, 'ledger.sqlite'),
      clock,
      owners: new TestOwners('host/300', living),
    });
    const deadRun = await dead.runs.claim('b2', 'outbox-drain');
    const { command: b2Command } = await dead.outbox.enqueue({
      brokerageId: 'b2',
      idempotencyKey: outboxKey('b2', 'create_offer_request', 'deal-2'),
      operation: 'create_offer_request',
      recordRef: 'deal:deal-2',
      payload: {},
    });
    await dead.outbox.markSending(b2Command.id);
    await dead.close();
    living.delete('host/300');

    expect(await daemon.recoverInterrupted()).toEqual({ runs: 1, outbox: 1, inbox: 0 });

    expect((await cli.outbox.get(work.commandId))?.state).toBe('sending');
    expect((await cli.inbox.list({ brokerageId: 'b1' }))[0].status).toBe('processing');
    expect((await daemon.outbox.get(b2Command.id))?.state).toBe('unknown');
    if (!('run' in deadRun)) throw new Error('unexpected');
    // The CLI finishes its runs as if nothing happened.
    await cli.outbox.complete(work.commandId, { id: 'r1' });
    await cli.inbox.markDone(work.eventId);
    for (const id of work.runs)
      await cli.runs.finish(id, {
        status: 'succeeded',
        counts: { read: 1, created: 1, updated: 0, unchanged: 0, failed: 0 },
      });
    const runs = await daemon.runs.lastRuns();
    expect(runs.map((r) => [r.brokerageId, r.job, r.status, r.owner])).toEqual([
      ['b1', 'inbox-drain', 'succeeded', 'host/200'],
      ['b1', 'outbox-drain', 'succeeded', 'host/200'],
      ['b2', 'outbox-drain', 'interrupted', 'host/300'],
    ]);
  });

  it('refuses a second run of a job a live process holds, and takes the job over once it is dead', async () => {
    const work = await cliMidRun();
    const held = await daemon.runs.claim('b1', 'outbox-drain');
    expect(held).toEqual({ heldBy: { runId: work.runs[0], owner: 'host/200', startedAt: expect.any(Date) } });
    // Another job of the same brokerage runs beside it.
    expect('run' in (await daemon.runs.claim('b1', 'crm-changes'))).toBe(true);

    living.delete('host/200'); // the CLI was SIGKILLed mid-run
    const outbox = await daemon.runs.claim('b1', 'outbox-drain');
    expect('run' in outbox && outbox.recovered).toEqual({ runs: 1, outbox: 1, inbox: 0 });
    expect((await daemon.outbox.get(work.commandId))?.state).toBe('unknown');
    const inbox = await daemon.runs.claim('b1', 'inbox-drain');
    expect('run' in inbox && inbox.recovered).toEqual({ runs: 1, outbox: 0, inbox: 1 });
    expect((await daemon.inbox.claimDue(10, { brokerageId: 'b1' })).map((e) => e.id)).toEqual([work.eventId]);
  });

  it("takes over its own process's run that was never finished", async () => {
    await daemon.runs.claim('b1', 'crm-changes');
    const second = await daemon.runs.claim('b1', 'crm-changes');
    expect('run' in second && second.recovered).toEqual({ runs: 1, outbox: 0, inbox: 0 });
  });
});

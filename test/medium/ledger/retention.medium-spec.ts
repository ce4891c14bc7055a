import { LedgerFixture, ledgerEngines, openTestLedger } from '../../support/ledger-fixture';

const DAY = 86_400_000;

describe.each(ledgerEngines())('LedgerRetention (%s)', (engine) => {
  let f: LedgerFixture;
  beforeEach(async () => {
    f = await openTestLedger(engine);
  });
  afterEach(async () => {
    await f.cleanup();
  });

  const counts = { read: 1, created: 1, updated: 0, unchanged: 0, failed: 0 };

  async function seedHistory(): Promise<void> {
    const { ledger } = f;
    // Outbox: one done, one dead, one unknown, one pending.
    const keys = ['done', 'dead', 'unknown', 'pending'];
    const ids: Record<string, number> = {};
    for (const key of keys) {
      const { command } = await ledger.outbox.enqueue({
        brokerageId: 'b1',
        idempotencyKey: key,
        operation: 'create_offer_request',
        recordRef: key,
        payload: {},
      });
      ids[key] = command.id;
    }
    await ledger.outbox.markSending(ids.done);
    await ledger.outbox.complete(ids.done, { ok: true });
    await ledger.outbox.deadLetter(ids.dead, 'rejected');
    await ledger.outbox.markSending(ids.unknown);
    await ledger.outbox.recordUnknown(ids.unknown, 'timeout');
    // Inbox: one done, one dead, one pending.
    for (const key of ['in-done', 'in-dead', 'in-pending']) {
      await ledger.inbox.storeIfNew({
        brokerageId: 'b1',
        dedupeKey: key,
        eventType: 'new_offer',
        payload: '{}',
      });
    }
    const claimed = await ledger.inbox.claimDue(2);
    await ledger.inbox.markDone(claimed[0].id);
    await ledger.inbox.deadLetter(claimed[1].id, 'no handler');
    // Runs: two finished marketplace runs (the older prunable), one running.
    for (let i = 0; i < 2; i += 1) {
      const run = await ledger.runs.start('b1', 'marketplace');
      await ledger.runs.finish(run.id, { counts, status: 'succeeded' });
    }
    await ledger.runs.start('b1', 'offers');
    // Errors: one resolved, one open.
    await ledger.recordErrors.record({
      brokerageId: 'b1',
      recordKind: 'deal',
      recordRef: 'd1',
      message: 'bad',
    });
    await ledger.recordErrors.record({
      brokerageId: 'b1',
      recordKind: 'deal',
      recordRef: 'd2',
      message: 'bad',
    });
    await ledger.recordErrors.resolve('b1', 'deal', 'd1');
  }

  it('deletes only finished history older than the cutoff', async () => {
    await seedHistory();
    f.clock.advance(30 * DAY);
    const pruned = await f.ledger.retention.prune({ olderThan: new Date(f.clock.nowMs() - DAY) });
    expect(pruned).toEqual({ outbox: 1, inbox: 1, runs: 1, recordErrors: 1, deadInbox: 0, history: 0 });
    expect(await f.ledger.outbox.depth()).toEqual({
      pending: 1,
      sending: 0,
      done: 0,
      failed: 0,
      unknown: 1,
      dead: 1,
    });
    expect(await f.ledger.inbox.depth()).toMatchObject({ done: 0, dead: 1, pending: 1 });
    // The latest run of each job stays, whatever its age, so "last success" keeps an answer.
    expect((await f.ledger.runs.lastRuns('b1')).map((r) => r.job)).toEqual(['marketplace', 'offers']);
    expect(await f.ledger.runs.list()).toHaveLength(2);
    expect((await f.ledger.recordErrors.listOpen()).map((e) => e.recordRef)).toEqual(['d2']);
    expect(await f.ledger.retention.prune({ olderThan: f.clock.now() })).toEqual({
      outbox: 0,
      inbox: 0,
      runs: 0,
      recordErrors: 0,
      deadInbox: 0,
      history: 0,
    });
  });

  it('keeps nothing newer than the cutoff', async () => {
    await seedHistory();
    f.clock.advance(30 * DAY);
    const pruned = await f.ledger.retention.prune({ olderThan: new Date('2026-02-01T00:00:00Z') });
    expect(pruned).toEqual({ outbox: 0, inbox: 0, runs: 0, recordErrors: 0, deadInbox: 0, history: 0 });
  });

  // Dead and flagged bodies (up to 256 KiB each) used to be kept forever.
  it('deletes dead and flagged inbox events after their own age, never dead outbox commands', async () => {
    await seedHistory();
    await f.ledger.inbox.storeIfNew({
      brokerageId: 'b1',
      dedupeKey: 'in-flagged',
      eventType: 'offer_withdrawn',
      payload: '{}',
      flagged: true,
    });
    f.clock.advance(30 * DAY);
    const early = await f.ledger.retention.prune({
      olderThan: new Date(f.clock.nowMs() - DAY),
      deadOlderThan: new Date(f.clock.nowMs() - 60 * DAY),
    });
    expect(early.deadInbox).toBe(0);
    f.clock.advance(40 * DAY);
    const pruned = await f.ledger.retention.prune({
      olderThan: new Date(f.clock.nowMs() - DAY),
      deadOlderThan: new Date(f.clock.nowMs() - 60 * DAY),
    });
    expect(pruned.deadInbox).toBe(2);
    expect(await f.ledger.inbox.depth()).toMatchObject({ dead: 0, flagged: 0, pending: 1 });
    expect((await f.ledger.outbox.depth()).dead).toBe(1);
  });

  it('keeps inbox dedupe keys at least 7 days even with a shorter cutoff', async () => {
    await seedHistory();
    f.clock.advance(3 * DAY);
    const pruned = await f.ledger.retention.prune({ olderThan: f.clock.now() });
    expect(pruned.inbox).toBe(0);
    expect(pruned.outbox).toBe(1);
    expect(
      (
        await f.ledger.inbox.storeIfNew({
          brokerageId: 'b1',
          dedupeKey: 'in-done',
          eventType: 'x',
          payload: '{}',
        })
      ).stored,
    ).toBe(false);
    f.clock.advance(5 * DAY);
    expect((await f.ledger.retention.prune({ olderThan: f.clock.now() })).inbox).toBe(1);
  });
});

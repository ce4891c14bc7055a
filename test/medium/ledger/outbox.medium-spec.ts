import { wasNotSent, wasRefused } from '../../../src/ledger';
import { outboxKey } from '../../../src/ledger/outbox-key';
import { LedgerFixture, ledgerEngines, openTestLedger } from '../../support/ledger-fixture';

describe.each(ledgerEngines())('OutboxRepository (%s)', (engine) => {
  let f: LedgerFixture;
  beforeEach(async () => {
    f = await openTestLedger(engine);
  });
  afterEach(async () => {
    await f.cleanup();
  });

  const command = (recordRef: string, brokerageId = 'b1') => ({
    brokerageId,
    idempotencyKey: outboxKey(brokerageId, recordRef, 'create_offer_request'),
    operation: 'create_offer_request',
    recordRef,
    payload: { StreetName: 'Main St', ListPrice: 350000 },
  });

  it('enqueues once per key and returns the existing command untouched', async () => {
    const first = await f.ledger.outbox.enqueue(command('deal:1'));
    expect(first.created).toBe(true);
    expect(first.command).toMatchObject({
      state: 'pending',
      attempts: 0,
      payload: { StreetName: 'Main St', ListPrice: 350000 },
      result: null,
      createdAt: f.clock.now(),
    });
    f.clock.advance(1000);
    const again = await f.ledger.outbox.enqueue({ ...command('deal:1'), payload: { changed: true } });
    expect(again.created).toBe(false);
    expect(again.command).toEqual(first.command);
    expect(await f.ledger.outbox.findByKey(first.command.idempotencyKey)).toEqual(first.command);
    expect(await f.ledger.outbox.findByKey('nope')).toBeNull();
  });

  it('keeps exactly one command when many callers enqueue the same key at once', async () => {
    const results = await Promise.all(
      Array.from({ length: 50 }, () => f.ledger.outbox.enqueue(command('deal:7'))),
    );
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(new Set(results.map((r) => r.command.id)).size).toBe(1);
    expect((await f.ledger.outbox.depth('b1')).pending).toBe(1);
  });

  it('tells its listeners of each command it stored, once committed, and not of a key it had', async () => {
    const told: { id: number; found: boolean }[] = [];
    const stop = f.ledger.outbox.onQueued((c) => {
      told.push({ id: c.id, found: false });
      // Committed before the listener hears of it: a drain it starts finds the command.
      void f.ledger.outbox.get(c.id).then((row) => (told[told.length - 1].found = row !== null));
    });
    const { command: first } = await f.ledger.outbox.enqueue(command('deal:1'));
    await f.ledger.outbox.enqueue(command('deal:1'));
    stop();
    await f.ledger.outbox.enqueue(command('deal:2'));
    await f.ledger.outbox.get(first.id);
    expect(told).toEqual([{ id: first.id, found: true }]);
  });

  it("brings an unknown command's next look forward to now, once, and tells its listeners", async () => {
    const { command: c } = await f.ledger.outbox.enqueue(command('deal:1'));
    const told: number[] = [];
    const stop = f.ledger.outbox.onQueued((q) => told.push(q.id));
    // Not unknown: left alone.
    expect(await f.ledger.outbox.lookForSoon(c.id)).toBe(false);
    await f.ledger.outbox.markSending(c.id);
    await f.ledger.outbox.recordUnknown(c.id, 'timed out', new Date(f.clock.nowMs() + 30_000));
    expect(await f.ledger.outbox.unknownDue('b1', 10)).toEqual([]);
    expect(await f.ledger.outbox.lookForSoon(c.id)).toBe(true);
    expect((await f.ledger.outbox.unknownDue('b1', 10)).map((x) => x.id)).toEqual([c.id]);
    // Already due: nothing to bring forward, nobody told again.
    expect(await f.ledger.outbox.lookForSoon(c.id)).toBe(false);
    stop();
    expect(told).toEqual([c.id]);
    expect(await f.ledger.outbox.get(c.id)).toMatchObject({
      state: 'unknown',
      attempts: 1,
      lastError: 'timed out',
    });
  });

  it('brings a failed command forward only when asked for failed ones', async () => {
    const { command: c } = await f.ledger.outbox.enqueue(command('deal:1'));
    await f.ledger.outbox.markSending(c.id);
    await f.ledger.outbox.fail(c.id, 'request id not known yet', new Date(f.clock.nowMs() + 60_000));
    expect(await f.ledger.outbox.lookForSoon(c.id)).toBe(false);
    expect(await f.ledger.outbox.lookForSoon(c.id, ['failed'])).toBe(true);
    expect((await f.ledger.outbox.claimDue('b1', 10)).map((x) => x.id)).toEqual([c.id]);
  });

  it("appends an answer's history entries in the same transaction as the command's new state, and none when the move is refused", async () => {
    const entry = (outcome: string) => ({
      brokerageId: 'b1',
      record: 'offer:7',
      source: 'service' as const,
      kind: 'command_sent',
      summary: `decide_offer sent: ${outcome}`,
      outcome,
    });
    const { command: c } = await f.ledger.outbox.enqueue(command('deal:1'));
    // Not in `sending`: refused, and its entry is not written.
    await expect(f.ledger.outbox.complete(c.id, {}, [entry('done')])).rejects.toThrow(/outbox command/);
    expect(await f.ledger.history.list('offer:7')).toEqual([]);
    await f.ledger.outbox.markSending(c.id);
    await f.ledger.outbox.recordUnknown(c.id, 'timed out', null, [entry('unknown')]);
    await f.ledger.outbox.resolveUnknown(c.id, { outcome: 'done', result: { offer_id: 7 } }, [entry('done')]);
    expect((await f.ledger.history.list('offer:7')).map((e) => e.outcome)).toEqual(['unknown', 'done']);
    expect((await f.ledger.history.verify('b1')).ok).toBe(true);
    // A second completion is refused with its entry.
    await expect(f.ledger.outbox.complete(c.id, {}, [entry('done')])).rejects.toThrow(/outbox command/);
    expect(await f.ledger.history.list('offer:7')).toHaveLength(2);
  });

  it('walks pending -> sending -> done, recording attempts, times and the result', async () => {
    const { command: c } = await f.ledger.outbox.enqueue(command('deal:1'));
    expect((await f.ledger.outbox.claimDue('b1', 10)).map((x) => x.id)).toEqual([c.id]);
    f.clock.advance(1000);
    const sending = await f.ledger.outbox.markSending(c.id);
    expect(sending).toMatchObject({ state: 'sending', attempts: 1, sentAt: f.clock.now() });
    // A command being sent is not due again.
    expect(await f.ledger.outbox.claimDue('b1', 10)).toEqual([]);
    await expect(f.ledger.outbox.markSending(c.id)).rejects.toThrow(`outbox command ${c.id} is sending`);
    f.clock.advance(1000);
    const done = await f.ledger.outbox.complete(c.id, { offer_request_id: 'OR-9' });
    expect(done).toMatchObject({
      state: 'done',
      result: { offer_request_id: 'OR-9' },
      completedAt: f.clock.now(),
    });
    await expect(f.ledger.outbox.fail(c.id, 'late', f.clock.now())).rejects.toThrow('is done');
  });

  it('retries a failed command only once its next attempt time has come', async () => {
    const { command: c } = await f.ledger.outbox.enqueue(command('deal:1'));
    await f.ledger.outbox.markSending(c.id);
    const failed = await f.ledger.outbox.fail(c.id, '429 rate limited', new Date(f.clock.nowMs() + 5000));
    expect(failed).toMatchObject({ state: 'failed', lastError: '429 rate limited' });
    expect(await f.ledger.outbox.claimDue('b1', 10)).toEqual([]);
    f.clock.advance(5000);
    expect((await f.ledger.outbox.claimDue('b1', 10)).map((x) => x.id)).toEqual([c.id]);
    expect((await f.ledger.outbox.markSending(c.id)).attempts).toBe(2);
  });

  it('claims the oldest due commands of some operations only, however many others are older', async () => {
    for (let i = 0; i < 3; i++) await f.ledger.outbox.enqueue(command(`deal:${i}`));
    const decision = (
      await f.ledger.outbox.enqueue({
        ...command('offer:9'),
        idempotencyKey: outboxKey('b1', 'offer:9', 'decide_offer'),
        operation: 'decide_offer',
      })
    ).command;
    expect((await f.ledger.outbox.claimDue('b1', 2)).map((c) => c.operation)).toEqual([
      'create_offer_request',
      'create_offer_request',
    ]);
    expect((await f.ledger.outbox.claimDue('b1', 2, ['decide_offer'])).map((c) => c.id)).toEqual([
      decision.id,
    ]);
    expect(await f.ledger.outbox.claimDue('b1', 2, [])).toEqual([]);
    expect(await f.ledger.outbox.claimDue('b2', 2, ['decide_offer'])).toEqual([]);
  });

  it("lists a brokerage's latest done commands of one operation, newest first", async () => {
    for (let i = 0; i < 3; i++) {
      const { command: c } = await f.ledger.outbox.enqueue(command(`deal:${i}`));
      await f.ledger.outbox.markSending(c.id);
      if (i < 2) await f.ledger.outbox.complete(c.id, { n: i });
    }
    expect((await f.ledger.outbox.latestDone('b1', 'create_offer_request', 5)).map((c) => c.result)).toEqual([
      { n: 1 },
      { n: 0 },
    ]);
    expect(await f.ledger.outbox.latestDone('b1', 'create_offer_request', 1)).toHaveLength(1);
    expect(await f.ledger.outbox.latestDone('b1', 'decide_offer', 5)).toEqual([]);
    expect(await f.ledger.outbox.latestDone('b2', 'create_offer_request', 5)).toEqual([]);
  });

  it('never claims an unknown outcome again until it is resolved', async () => {
    const a = (await f.ledger.outbox.enqueue(command('deal:a'))).command;
    const b = (await f.ledger.outbox.enqueue(command('deal:b'))).command;
    for (const c of [a, b]) {
      await f.ledger.outbox.markSending(c.id);
      await f.ledger.outbox.recordUnknown(c.id, 'timed out after 10 s');
    }
    f.clock.advance(86_400_000);
    expect(await f.ledger.outbox.claimDue('b1', 10)).toEqual([]);
    expect((await f.ledger.outbox.listByState('b1', ['unknown'])).map((c) => c.id)).toEqual([a.id, b.id]);

    // Found on the service: done with what was found. Provably absent: pending again.
    expect(
      await f.ledger.outbox.resolveUnknown(a.id, { outcome: 'done', result: { id: 'OR-1' } }),
    ).toMatchObject({
      state: 'done',
      result: { id: 'OR-1' },
    });
    expect(await f.ledger.outbox.resolveUnknown(b.id, { outcome: 'pending' })).toMatchObject({
      state: 'pending',
    });
    expect((await f.ledger.outbox.claimDue('b1', 10)).map((c) => c.id)).toEqual([b.id]);
    await expect(f.ledger.outbox.resolveUnknown(b.id, { outcome: 'pending' })).rejects.toThrow(
      'only from unknown',
    );
  });

  it('turns commands a crash left in sending into unknown', async () => {
    const { command: c } = await f.ledger.outbox.enqueue(command('deal:1'));
    await f.ledger.outbox.markSending(c.id);
    expect(await f.ledger.outbox.recoverInterrupted()).toBe(1);
    expect(await f.ledger.outbox.get(c.id)).toMatchObject({
      state: 'unknown',
      lastError: expect.stringMatching(/stopped/),
    });
  });

  it('keeps what a sending command noted about its try through a crash, until it is done', async () => {
    const { command: c } = await f.ledger.outbox.enqueue(command('deal:1'));
    // Only a command that is sending notes its try.
    await expect(f.ledger.outbox.noteSending(c.id, { media_sent: 5 })).rejects.toThrow();
    await f.ledger.outbox.markSending(c.id);
    await f.ledger.outbox.noteSending(c.id, { media_sent: 10 });
    expect(await f.ledger.outbox.noteSending(c.id, { media_sent: 5 })).toMatchObject({
      state: 'sending',
      result: { media_sent: 5 },
    });
    await f.ledger.outbox.recoverInterrupted();
    expect(await f.ledger.outbox.get(c.id)).toMatchObject({ state: 'unknown', result: { media_sent: 5 } });
    expect(
      await f.ledger.outbox.resolveUnknown(c.id, {
        outcome: 'done',
        result: { offer_request_id: 7, media_sent: 5 },
      }),
    ).toMatchObject({ state: 'done', result: { offer_request_id: 7, media_sent: 5 } });
  });

  it('dead-letters and replays by state, id and brokerage', async () => {
    const a = (await f.ledger.outbox.enqueue(command('deal:a'))).command;
    const b = (await f.ledger.outbox.enqueue(command('deal:b'))).command;
    const c = (await f.ledger.outbox.enqueue(command('deal:c', 'b2'))).command;
    await f.ledger.outbox.markSending(b.id);
    await f.ledger.outbox.recordUnknown(b.id, 'socket hang up');
    await f.ledger.outbox.deadLetter(a.id, 'StreetName is 57 characters; the service allows 50');
    await f.ledger.outbox.deadLetter(c.id, 'rejected');
    expect(await f.ledger.outbox.get(a.id)).toMatchObject({
      state: 'dead',
      lastError: expect.stringMatching(/57/),
    });

    expect(await f.ledger.outbox.replay({ brokerageId: 'b1' })).toBe(1); // dead only by default
    expect(await f.ledger.outbox.get(a.id)).toMatchObject({ state: 'pending' });
    expect(await f.ledger.outbox.replay({ ids: [b.id], states: ['unknown'] })).toBe(1);
    expect(await f.ledger.outbox.replay({ states: ['done', 'sending'] })).toBe(0);
    expect(await f.ledger.outbox.depth()).toEqual({
      pending: 2,
      sending: 0,
      done: 0,
      failed: 0,
      unknown: 0,
      dead: 1,
    });
    expect(await f.ledger.outbox.depth('b2')).toMatchObject({ dead: 1, pending: 0 });
  });

  it('rearms with a new payload only a dead command the remote did nothing with, once', async () => {
    const held = (await f.ledger.outbox.enqueue(command('deal:h'))).command;
    const refused = (await f.ledger.outbox.enqueue(command('deal:r'))).command;
    const gaveUp = (await f.ledger.outbox.enqueue(command('deal:g'))).command;
    for (const c of [held, refused, gaveUp]) await f.ledger.outbox.markSending(c.id);
    const notSent = await f.ledger.outbox.deadLetter(
      held.id,
      'expiry passed; nothing was sent',
      [],
      'not-sent',
    );
    const answered = await f.ledger.outbox.deadLetter(refused.id, 'HTTP 409 from the service', [], 'refused');
    const sent = await f.ledger.outbox.deadLetter(gaveUp.id, 'gave up after 8 attempts: HTTP 503');
    expect(wasNotSent(notSent)).toBe(true);
    expect(wasNotSent(sent)).toBe(false);
    expect(wasRefused(answered)).toBe(true);
    expect(wasRefused(sent)).toBe(false);
    expect(await f.ledger.outbox.rearm(answered, { decision: 'rejected' })).toMatchObject({
      state: 'pending',
      payload: { decision: 'rejected' },
      result: null,
    });

    const rearmed = await f.ledger.outbox.rearm(notSent, { StreetName: "O'Hara St", ListPrice: 1 });
    expect(rearmed).toMatchObject({
      state: 'pending',
      attempts: 0,
      payload: { StreetName: "O'Hara St", ListPrice: 1 },
      result: null,
      lastError: null,
      sentAt: null,
    });
    expect(await f.ledger.outbox.get(held.id)).toMatchObject({ payload: { StreetName: "O'Hara St" } });
    await expect(f.ledger.outbox.rearm(sent, {})).rejects.toThrow(/may have been applied/);
    await expect(f.ledger.outbox.rearm(notSent, {})).rejects.toThrow();
  });

  it('claims per brokerage, oldest first, up to the limit', async () => {
    for (let i = 0; i < 4; i += 1) await f.ledger.outbox.enqueue(command(`deal:${i}`, i === 2 ? 'b2' : 'b1'));
    const due = await f.ledger.outbox.claimDue('b1', 2);
    expect(due.map((c) => c.recordRef)).toEqual(['deal:0', 'deal:1']);
    expect((await f.ledger.outbox.claimDue('b2', 10)).map((c) => c.recordRef)).toEqual(['deal:2']);
  });
});

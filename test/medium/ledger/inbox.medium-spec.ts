import { LedgerFixture, ledgerEngines, openTestLedger } from '../../support/ledger-fixture';

describe.each(ledgerEngines())('InboxRepository (%s)', (engine) => {
  let f: LedgerFixture;
  beforeEach(async () => {
    f = await openTestLedger(engine);
  });
  afterEach(async () => {
    await f.cleanup();
  });

  const event = (dedupeKey: string, orderingKey: string | null = null, brokerageId = 'b1') => ({
    brokerageId,
    dedupeKey,
    eventType: 'new_offer',
    orderingKey,
    payload: JSON.stringify({ key: dedupeKey }),
  });

  it('stores an event once and answers a duplicate with the first id', async () => {
    const first = await f.ledger.inbox.storeIfNew(event('k1', 'req-1'));
    const again = await f.ledger.inbox.storeIfNew(event('k1', 'req-1'));
    expect(first.stored).toBe(true);
    expect(again).toEqual({ stored: false, id: first.id });
    expect(await f.ledger.inbox.get(first.id)).toMatchObject({
      brokerageId: 'b1',
      dedupeKey: 'k1',
      eventType: 'new_offer',
      orderingKey: 'req-1',
      payload: '{"key":"k1"}',
      status: 'pending',
      attempts: 0,
      receivedAt: f.clock.now(),
      processedAt: null,
    });
  });

  it('keeps exactly one row when many callers store the same key at once', async () => {
    const results = await Promise.all(
      Array.from({ length: 50 }, () => f.ledger.inbox.storeIfNew(event('same'))),
    );
    expect(results.filter((r) => r.stored)).toHaveLength(1);
    expect(new Set(results.map((r) => r.id)).size).toBe(1);
    expect((await f.ledger.inbox.depth()).pending).toBe(1);
  });

  it('stores a burst of different events, each once, in the order they arrived', async () => {
    const keys = Array.from({ length: 40 }, (_, i) => `burst-${i}`);
    const results = await Promise.all(
      [...keys, ...keys.slice(0, 5)].map((k) => f.ledger.inbox.storeIfNew(event(k))),
    );
    expect(results.slice(0, 40).every((r) => r.stored)).toBe(true);
    expect(results.slice(40)).toEqual(results.slice(0, 5).map((r) => ({ stored: false, id: r.id })));
    const ids = results.slice(0, 40).map((r) => r.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect((await f.ledger.inbox.depth('b1')).pending).toBe(40);
  });

  it('stores flagged events apart from the work queue', async () => {
    await f.ledger.inbox.storeIfNew({ ...event('k1'), flagged: true });
    expect(await f.ledger.inbox.claimDue(10)).toEqual([]);
    expect((await f.ledger.inbox.depth('b1')).flagged).toBe(1);
  });

  it('keeps malformed bodies as dead letters with their reason, once per body', async () => {
    const letter = (rawBody: string) => ({
      brokerageId: 'b1',
      dedupeKey: `malformed:${rawBody}`,
      reason: 'body is not JSON',
      rawBody,
    });
    const dead = await f.ledger.inbox.storeDeadLetter(letter('{oops'));
    const again = await f.ledger.inbox.storeDeadLetter(letter('{oops'));
    const other = await f.ledger.inbox.storeDeadLetter(letter('{other'));
    expect(dead.stored).toBe(true);
    expect(again).toEqual({ stored: false, id: dead.id });
    expect(await f.ledger.inbox.list({ statuses: ['dead'] })).toEqual([
      expect.objectContaining({ id: other.id, payload: '{other' }),
      expect.objectContaining({
        id: dead.id,
        payload: '{oops',
        deadReason: 'body is not JSON',
        eventType: 'malformed',
      }),
    ]);
    // Nothing to process in them, so a replay leaves them alone.
    expect(await f.ledger.inbox.replayDead({ brokerageId: 'b1' })).toBe(0);
  });

  it('claims in order of receipt, one event at a time per ordering key', async () => {
    const a1 = await f.ledger.inbox.storeIfNew(event('a1', 'req-A'));
    const b1 = await f.ledger.inbox.storeIfNew(event('b1', 'req-B'));
    const a2 = await f.ledger.inbox.storeIfNew(event('a2', 'req-A'));
    const n1 = await f.ledger.inbox.storeIfNew(event('n1', null));
    const n2 = await f.ledger.inbox.storeIfNew(event('n2', null));

    const claimed = await f.ledger.inbox.claimDue(10);
    expect(claimed.map((e) => e.id)).toEqual([a1.id, b1.id, n1.id, n2.id]);
    expect(claimed.every((e) => e.status === 'processing' && e.attempts === 1)).toBe(true);
    // a2 waits for a1, and claimed events are not handed out twice.
    expect(await f.ledger.inbox.claimDue(10)).toEqual([]);

    await f.ledger.inbox.markDone(a1.id);
    expect((await f.ledger.inbox.claimDue(10)).map((e) => e.id)).toEqual([a2.id]);
    expect(await f.ledger.inbox.get(a1.id)).toMatchObject({ status: 'done', processedAt: f.clock.now() });
  });

  it('respects the limit and the brokerage filter', async () => {
    for (let i = 0; i < 5; i += 1) await f.ledger.inbox.storeIfNew(event(`x${i}`, null, i % 2 ? 'b2' : 'b1'));
    expect(await f.ledger.inbox.claimDue(2, { brokerageId: 'b1' })).toHaveLength(2);
    const rest = await f.ledger.inbox.claimDue(10, { brokerageId: 'b1' });
    expect(rest.map((e) => e.brokerageId)).toEqual(['b1']);
    expect((await f.ledger.inbox.depth('b2')).pending).toBe(2);
  });

  it('retries a failed event after its time, still blocking later events of its key', async () => {
    const a1 = await f.ledger.inbox.storeIfNew(event('a1', 'req-A'));
    const a2 = await f.ledger.inbox.storeIfNew(event('a2', 'req-A'));
    await f.ledger.inbox.claimDue(10);
    await f.ledger.inbox.markFailed(a1.id, 'CRM answered 503', new Date(f.clock.nowMs() + 30_000));
    expect(await f.ledger.inbox.get(a1.id)).toMatchObject({
      status: 'failed',
      lastError: 'CRM answered 503',
    });
    expect(await f.ledger.inbox.claimDue(10)).toEqual([]);
    f.clock.advance(30_000);
    const retried = await f.ledger.inbox.claimDue(10);
    expect(retried.map((e) => [e.id, e.attempts])).toEqual([[a1.id, 2]]);
    // Dead-lettering the blocker lets the next event of the key through.
    await f.ledger.inbox.deadLetter(a1.id, 'gave up after 2 attempts');
    expect((await f.ledger.inbox.claimDue(10)).map((e) => e.id)).toEqual([a2.id]);
  });

  it('makes the failed events of one ordering key due now, and no others', async () => {
    const waiting = await f.ledger.inbox.storeIfNew(event('w1', 'offer_request:7'));
    const otherKey = await f.ledger.inbox.storeIfNew(event('w2', 'offer_request:8'));
    const otherBrokerage = await f.ledger.inbox.storeIfNew(event('w3', 'offer_request:7', 'b2'));
    await f.ledger.inbox.claimDue(10);
    for (const id of [waiting.id, otherKey.id, otherBrokerage.id])
      await f.ledger.inbox.markFailed(id, 'not linked yet', new Date(f.clock.nowMs() + 60_000));
    expect(await f.ledger.inbox.retryWaitingNow('b1', 'offer_request:7')).toBe(1);
    expect((await f.ledger.inbox.claimDue(10)).map((e) => e.id)).toEqual([waiting.id]);
    // Already due, or being applied: nothing to bring forward.
    expect(await f.ledger.inbox.retryWaitingNow('b1', 'offer_request:7')).toBe(0);
  });

  it('replays dead events by id or brokerage, and refuses impossible transitions', async () => {
    const a = await f.ledger.inbox.storeIfNew(event('a'));
    const b = await f.ledger.inbox.storeIfNew(event('b'));
    const c = await f.ledger.inbox.storeIfNew(event('c', null, 'b2'));
    await expect(f.ledger.inbox.markDone(a.id)).rejects.toThrow(`inbox event ${a.id} is pending`);
    await expect(f.ledger.inbox.markDone(9999)).rejects.toThrow('inbox event 9999 does not exist');
    for (const e of [a, b, c]) await f.ledger.inbox.deadLetter(e.id, 'no handler');
    expect(await f.ledger.inbox.get(a.id)).toMatchObject({ status: 'dead', deadReason: 'no handler' });
    expect(await f.ledger.inbox.replayDead({ ids: [a.id] })).toBe(1);
    expect(await f.ledger.inbox.replayDead({ ids: [] })).toBe(0);
    expect(await f.ledger.inbox.replayDead({ brokerageId: 'b1' })).toBe(1);
    expect(await f.ledger.inbox.depth()).toEqual({
      pending: 2,
      processing: 0,
      done: 0,
      failed: 0,
      dead: 1,
      flagged: 0,
    });
    expect(await f.ledger.inbox.replayDead()).toBe(1);
  });

  it('puts events a crash left in processing back to pending', async () => {
    await f.ledger.inbox.storeIfNew(event('a'));
    await f.ledger.inbox.storeIfNew(event('b'));
    await f.ledger.inbox.claimDue(1);
    expect(await f.ledger.inbox.recoverInterrupted()).toBe(1);
    expect((await f.ledger.inbox.depth()).pending).toBe(2);
  });

  it('lists newest first with filters', async () => {
    await f.ledger.inbox.storeIfNew(event('a', 'req-A'));
    await f.ledger.inbox.storeIfNew(event('b', 'req-B'));
    await f.ledger.inbox.storeIfNew(event('c', 'req-A'));
    expect((await f.ledger.inbox.list({ orderingKey: 'req-A' })).map((e) => e.dedupeKey)).toEqual(['c', 'a']);
    expect((await f.ledger.inbox.list({ limit: 1 })).map((e) => e.dedupeKey)).toEqual(['c']);
    expect(await f.ledger.inbox.list({ brokerageId: 'other' })).toEqual([]);
  });
});

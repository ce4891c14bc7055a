import { Ledger } from '../../../src/ledger/ledger';
import { LedgerStateError } from '../../../src/ledger/repositories/ledger-state.error';
import { outboxKey } from '../../../src/ledger/outbox-key';
import { LedgerFixture, ledgerEngines, openTestLedger } from '../../support/ledger-fixture';

// Several workers on one ledger, each with its own connection pool, as when daemons share PostgreSQL.
// PostgreSQL only: SQLite serves one daemon, and better-sqlite3's synchronous busy wait would block a
// second connection in the same thread forever.
const sharedEngines = ledgerEngines().filter((engine) => engine === 'postgres');
if (sharedEngines.length === 0) it.todo('ledger shared by workers: needs the test PostgreSQL server');
else
  describe.each(sharedEngines)('ledger shared by workers (%s)', (engine) => {
    let f: LedgerFixture;
    let workers: Ledger[];
    beforeEach(async () => {
      f = await openTestLedger(engine);
      workers = [f.ledger, await f.openAnother(), await f.openAnother()];
    });
    afterEach(async () => {
      await f.cleanup();
    });

    const event = (dedupeKey: string, orderingKey: string | null = null) => ({
      brokerageId: 'b1',
      dedupeKey,
      eventType: 'new_offer',
      orderingKey,
      payload: '{}',
    });

    it('claims each inbox event for exactly one worker, however many claim at once', async () => {
      for (let i = 0; i < 60; i++) await f.ledger.inbox.storeIfNew(event(`e${i}`));
      const claimed: number[][] = workers.map(() => []);
      const claimUntilEmpty = async (w: number) => {
        for (;;) {
          const batch = await workers[w].inbox.claimDue(7);
          if (batch.length === 0) return;
          claimed[w].push(...batch.map((e) => e.id));
        }
      };
      await Promise.all(workers.flatMap((_, w) => [claimUntilEmpty(w), claimUntilEmpty(w)]));
      const all = claimed.flat();
      expect(all).toHaveLength(60);
      expect(new Set(all).size).toBe(60);
      expect((await f.ledger.inbox.depth()).processing).toBe(60);
    });

    it('keeps one ordering key to one worker at a time', async () => {
      for (let i = 0; i < 5; i++) await f.ledger.inbox.storeIfNew(event(`k${i}`, 'request-1'));
      const batches = await Promise.all(workers.map((w) => w.inbox.claimDue(10)));
      const claimed = batches.flat();
      expect(claimed).toHaveLength(1);
      expect(claimed[0].dedupeKey).toBe('k0');
    });

    it('lets exactly one worker mark an outbox command sending', async () => {
      const { command } = await f.ledger.outbox.enqueue({
        brokerageId: 'b1',
        idempotencyKey: outboxKey('b1', 'deal:1', 'create_offer_request'),
        operation: 'create_offer_request',
        recordRef: 'deal:1',
        payload: {},
      });
      const due = await Promise.all(workers.map((w) => w.outbox.claimDue('b1', 10)));
      expect(due.every((d) => d.length <= 1)).toBe(true);
      const attempts = await Promise.allSettled(
        workers.flatMap((w) => [w.outbox.markSending(command.id), w.outbox.markSending(command.id)]),
      );
      expect(attempts.filter((a) => a.status === 'fulfilled')).toHaveLength(1);
      const refused = attempts.filter((a): a is PromiseRejectedResult => a.status === 'rejected');
      expect(refused.every((a) => a.reason instanceof LedgerStateError)).toBe(true);
      expect(await f.ledger.outbox.get(command.id)).toMatchObject({ state: 'sending', attempts: 1 });
    });

    it('stores a webhook delivered to every worker at once exactly once', async () => {
      const results = await Promise.all(
        workers.flatMap((w) => Array.from({ length: 10 }, () => w.inbox.storeIfNew(event('same')))),
      );
      expect(results.filter((r) => r.stored)).toHaveLength(1);
      expect(new Set(results.map((r) => r.id)).size).toBe(1);
    });

    it('keeps one command per key when every worker enqueues it at once', async () => {
      const input = {
        brokerageId: 'b1',
        idempotencyKey: outboxKey('b1', 'deal:2', 'create_offer_request'),
        operation: 'create_offer_request',
        recordRef: 'deal:2',
        payload: { n: 1 },
      };
      const results = await Promise.all(
        workers.flatMap((w) => [w.outbox.enqueue(input), w.outbox.enqueue(input)]),
      );
      expect(results.filter((r) => r.created)).toHaveLength(1);
      expect(new Set(results.map((r) => r.command.id)).size).toBe(1);
    });
    it('recovers only the taken-over brokerage and job when a worker takes a singleton over', async () => {
      const [, other] = workers;
      const a = await f.ledger.runs.start('b1', 'outbox-drain');
      const b = await f.ledger.runs.start('b2', 'outbox-drain');
      const c = await f.ledger.runs.start('b1', 'marketplace');
      for (const [brokerageId, ref] of [
        ['b1', 'deal:1'],
        ['b2', 'deal:2'],
      ]) {
        const { command } = await f.ledger.outbox.enqueue({
          brokerageId,
          idempotencyKey: outboxKey(brokerageId, ref, 'create_offer_request'),
          operation: 'create_offer_request',
          recordRef: ref,
          payload: {},
        });
        await f.ledger.outbox.markSending(command.id);
      }
      expect(await other.runs.recoverInterrupted({ brokerageId: 'b1', job: 'outbox-drain' })).toBe(1);
      expect(await other.outbox.recoverInterrupted('b1')).toBe(1);
      const status = async (id: number) =>
        (await f.ledger.runs.list({ limit: 10 })).find((r) => r.id === id)?.status;
      expect([await status(a.id), await status(b.id), await status(c.id)]).toEqual([
        'interrupted',
        'running',
        'running',
      ]);
      expect((await f.ledger.outbox.depth('b1')).unknown).toBe(1);
      expect((await f.ledger.outbox.depth('b2')).sending).toBe(1);
    });
  });

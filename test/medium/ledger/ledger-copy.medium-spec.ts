import { Ledger, openLedger } from '../../../src/ledger/ledger';
import { copyLedger, LedgerNotEmptyError } from '../../../src/ledger/ledger-copy';
import { outboxKey } from '../../../src/ledger/outbox-key';
import { LedgerFixture, ledgerEngines, openTestLedger } from '../../support/ledger-fixture';
import { createTestPostgresDatabase, type TestPostgresDatabase } from '../../support/postgres-database';

// A populated SQLite ledger copied into PostgreSQL (the migrate-ledger command's work).
const withPostgres = ledgerEngines().includes('postgres');
if (!withPostgres) it.todo('copyLedger: needs the test PostgreSQL server');
else
  describe('copyLedger from SQLite to PostgreSQL', () => {
    let f: LedgerFixture;
    let db: TestPostgresDatabase;
    let target: Ledger;
    beforeEach(async () => {
      f = await openTestLedger('sqlite');
      db = await createTestPostgresDatabase('copy');
      target = await openLedger({ databasePath: f.databasePath, url: db.url, clock: f.clock });
    });
    afterEach(async () => {
      await target.close();
      await f.cleanup();
      await db.drop();
    });

    const command = (ref: string) => ({
      brokerageId: 'b1',
      idempotencyKey: outboxKey('b1', ref, 'create_offer_request'),
      operation: 'create_offer_request',
      recordRef: ref,
      payload: { StreetName: 'Main St', ListPrice: 350000, nested: { ok: true } },
    });

    async function populate(l: Ledger): Promise<void> {
      const run = await l.runs.start('b1', 'crm-changes');
      await l.links.upsertLinks(
        'b1',
        'offer_request',
        Array.from({ length: 1500 }, (_, i) => ({
          remoteId: `r${i}`,
          crmId: `c${i}`,
          contentHash: `h${i}`,
          runId: run.id,
        })),
      );
      await l.runs.finish(run.id, {
        status: 'succeeded',
        counts: { read: 1500, created: 1500, updated: 0, unchanged: 0, failed: 0 },
      });
      // A gap in the ids (as deletions leave), which the copy must keep.
      await l.transactions.run((m) =>
        m.query("DELETE FROM inbox_events WHERE id < 0 OR dedupe_key = 'gone'"),
      );
      await l.inbox.storeIfNew({
        brokerageId: 'b1',
        dedupeKey: 'gone',
        eventType: 'new_offer',
        payload: '{}',
      });
      await l.transactions.run((m) => m.query("DELETE FROM inbox_events WHERE dedupe_key = 'gone'"));
      await l.inbox.storeIfNew({ brokerageId: 'b1', dedupeKey: 'k3', eventType: 'new_offer', payload: '{}' });
      await l.runs.start('b1', 'outbox-drain'); // cut short by a crash
      await l.cursors.commitPage('b1', 'deals', '{"after":"2026-03-01"}');
      const done = (await l.outbox.enqueue(command('deal:1'))).command;
      await l.outbox.markSending(done.id);
      await l.outbox.complete(done.id, { offer_request_id: 41 });
      const inFlight = (await l.outbox.enqueue(command('deal:2'))).command;
      await l.outbox.markSending(inFlight.id);
      await l.outbox.enqueue(command('deal:3'));
      await l.inbox.storeIfNew({ brokerageId: 'b1', dedupeKey: 'k1', eventType: 'new_offer', payload: '{}' });
      await l.inbox.storeIfNew({
        brokerageId: 'b1',
        dedupeKey: 'k2',
        eventType: 'new_offer',
        orderingKey: 'req-1',
        payload: '{}',
      });
      await l.inbox.claimDue(1);
      await l.recordErrors.record({
        brokerageId: 'b1',
        recordKind: 'deal',
        recordRef: 'd9',
        message: 'too long',
      });
      await l.recordErrors.record({
        brokerageId: 'b1',
        recordKind: 'deal',
        recordRef: 'd9',
        field: 'StreetName',
        message: 'StreetName is 57 characters; the service allows 50',
      });
      const step = (summary: string) => ({
        brokerageId: 'b1',
        record: 'offer:7',
        source: 'daemon' as const,
        kind: 'record_shown',
        summary,
        outcome: 'done',
      });
      await l.history.append([step('created'), step('countered')]);
    }

    it('copies every row with its id and state, and new rows continue after the copied ids', async () => {
      await populate(f.ledger);
      const counts = await copyLedger(f.ledger, target);
      expect(counts).toEqual({
        links: 1500,
        inbox_events: 3,
        outbox_commands: 3,
        runs: 2,
        record_errors: 2,
        history_entries: 2,
        cursors: 1,
        history_chains: 1,
      });
      // The decision history arrives whole: its chain still verifies, and appends continue it.
      await expect(target.history.verify()).resolves.toMatchObject({ ok: true, checked: 2 });
      const both = async <T>(read: (l: Ledger) => Promise<T>) => [await read(f.ledger), await read(target)];
      const [outA, outB] = await both((l) => l.outbox.listByState('b1', ['pending', 'sending', 'done']));
      expect(outB).toEqual(outA);
      const [runsA, runsB] = await both((l) => l.runs.list({ limit: 10 }));
      expect(runsB).toEqual(runsA);
      const [inboxA, inboxB] = await both((l) => l.inbox.list({ limit: 10 }));
      expect(inboxB).toEqual(inboxA);
      const [errorsA, errorsB] = await both((l) => l.recordErrors.listOpen());
      expect(errorsB).toEqual(errorsA);
      expect(await target.links.find('b1', 'offer_request', 'r1499')).toEqual(
        await f.ledger.links.find('b1', 'offer_request', 'r1499'),
      );
      expect(await target.cursors.get('b1', 'deals')).toBe('{"after":"2026-03-01"}');
      // The sequences moved past the copied ids.
      const next = await target.outbox.enqueue(command('deal:4'));
      expect(next.command.id).toBe(outA.length + 1);
      const nextRun = await target.runs.start('b1', 'marketplace');
      expect(nextRun.id).toBe(3);
    });

    it('refuses a target that already holds rows, and changes nothing in it', async () => {
      await populate(f.ledger);
      await target.cursors.commitPage('b2', 'deals', 'x');
      await expect(copyLedger(f.ledger, target)).rejects.toBeInstanceOf(LedgerNotEmptyError);
      expect(await target.outbox.depth()).toMatchObject({ pending: 0, done: 0 });
    });
  });

import Database from 'better-sqlite3';
import { LINK_CONTENT_WIDTH, Link } from '../../../src/ledger/entities';
import { openLedger } from '../../../src/ledger/ledger';
import { NestedLedgerWorkError } from '../../../src/ledger/ledger-transactions';
import { LedgerFixture, ledgerEngines, openTestLedger } from '../../support/ledger-fixture';

describe.each(ledgerEngines())('ledger connection and transactions (%s)', (engine) => {
  let f: LedgerFixture;
  beforeEach(async () => {
    f = await openTestLedger(engine);
  });
  afterEach(async () => {
    await f.cleanup();
  });

  it('applies the committed migrations, and the entities match them exactly', async () => {
    const migrations: { name: string }[] = await f.ledger.dataSource.query('SELECT name FROM migrations');
    expect(migrations.map((m) => m.name)).toEqual([
      'InitialLedger1763700000000',
      'LedgerMeta1764000000000',
      'Pauses1764100000000',
      'AccountRateLimits1764200000000',
      'RunOwners1764300000000',
      'LedgerTurns1764400000000',
      'Alerts1764500000000',
      'CrmWebhookEvents1764600000000',
      'DecisionHistory1764700000000',
      'LinkReadTimes1764800000000',
      'WorkerHeartbeats1764900000000',
      'WorkerSessions1765000000000',
      'ReceivedConfirmations1765100000000',
      'LinkContentWidth1765200000000',
    ]);
    // What `synchronize` would change if it were on: nothing, or the migration and entities disagree.
    const pending = await f.ledger.dataSource.driver.createSchemaBuilder().log();
    expect(pending.upQueries.map((q) => q.query)).toEqual([]);
  });

  it("keeps a link's content up to the column's width (a counter's link with every field set)", async () => {
    const content = `{"s":"${'x'.repeat(LINK_CONTENT_WIDTH - 8)}"}`;
    expect(content).toHaveLength(LINK_CONTENT_WIDTH);
    await f.ledger.links.upsertLinks('b1', 'counter_offer', [
      { remoteId: '7', crmId: 'unnamed:7', contentHash: content },
    ]);
    expect((await f.ledger.links.find('b1', 'counter_offer', '7'))?.contentHash).toBe(content);
  });

  it('reopens an existing file without re-running migrations and keeps the data', async () => {
    await f.ledger.links.upsertLinks('b1', 'offer', [{ remoteId: 'r1', crmId: 'c1', contentHash: 'h1' }]);
    await f.ledger.close();
    const reopened = await openLedger({ databasePath: f.databasePath, url: f.url, clock: f.clock });
    try {
      expect((await reopened.links.find('b1', 'offer', 'r1'))?.crmId).toBe('c1');
      const migrations: unknown[] = await reopened.dataSource.query('SELECT name FROM migrations');
      expect(migrations).toHaveLength(14);
    } finally {
      await reopened.close();
    }
  });

  it('rolls back everything a failing transaction wrote, and the next one runs normally', async () => {
    await expect(
      f.ledger.transactions.run(async (m) => {
        await m.insert(Link, {
          brokerageId: 'b1',
          kind: 'offer',
          remoteId: 'r1',
          crmId: 'c1',
          contentHash: 'h',
          createdAt: f.clock.now(),
          updatedAt: f.clock.now(),
        });
        throw new Error('page failed');
      }),
    ).rejects.toThrow('page failed');
    expect(await f.ledger.links.find('b1', 'offer', 'r1')).toBeNull();
    await f.ledger.links.upsertLinks('b1', 'offer', [{ remoteId: 'r2', crmId: 'c2', contentHash: 'h' }]);
    expect(await f.ledger.links.find('b1', 'offer', 'r2')).not.toBeNull();
  });

  it('refuses ledger work started from inside a transaction instead of deadlocking', async () => {
    await expect(
      f.ledger.transactions.run(async () => {
        await f.ledger.links.find('b1', 'offer', 'r1');
      }),
    ).rejects.toBeInstanceOf(NestedLedgerWorkError);
  });
});

describe('ledger connection and transactions on SQLite', () => {
  let f: LedgerFixture;
  beforeEach(async () => {
    f = await openTestLedger('sqlite');
  });
  afterEach(async () => {
    await f.cleanup();
  });

  it('sets the durability pragmas at connect', async () => {
    const pragma = async (name: string) =>
      f.ledger.transactions.exclusive(async (m) => {
        const rows: Record<string, unknown>[] = await m.query(`PRAGMA ${name}`);
        return Object.values(rows[0])[0];
      });
    expect(await pragma('journal_mode')).toBe('wal');
    expect(await pragma('synchronous')).toBe(2); // FULL
    expect(await pragma('busy_timeout')).toBe(5000);
    expect(await pragma('foreign_keys')).toBe(1);
    expect(await pragma('cache_size')).toBe(-2000); // 2 MiB, so memory does not grow with the ledger
  });

  it('serialises parallel transactions: read-modify-write with awaits in between never collides', async () => {
    await f.ledger.cursors.commitPage('b1', 'counter', '0');
    await Promise.all(
      Array.from({ length: 25 }, () =>
        f.ledger.transactions.run(async (m) => {
          const rows: { cursor: string }[] = await m.query('SELECT cursor FROM cursors WHERE stream = ?', [
            'counter',
          ]);
          await new Promise((resolve) => setImmediate(resolve));
          await m.query('UPDATE cursors SET cursor = ? WHERE stream = ?', [
            String(Number(rows[0].cursor) + 1),
            'counter',
          ]);
        }),
      ),
    );
    expect(await f.ledger.cursors.get('b1', 'counter')).toBe('25');
  });

  it('runs transactions in the order they were asked for', async () => {
    const order: number[] = [];
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        f.ledger.transactions.run(async () => {
          order.push(i);
        }),
      ),
    );
    expect(order).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('begins write transactions IMMEDIATE: another connection cannot start writing meanwhile', async () => {
    const other = new Database(f.databasePath, { timeout: 0 });
    try {
      let otherCouldWrite: boolean | undefined;
      await f.ledger.transactions.run(async () => {
        // No statement has run inside the transaction yet: only BEGIN IMMEDIATE holds the write lock.
        try {
          other.exec('BEGIN IMMEDIATE; ROLLBACK;');
          otherCouldWrite = true;
        } catch (error) {
          otherCouldWrite = false;
          expect(String(error)).toMatch(/locked|busy/i);
        }
      });
      expect(otherCouldWrite).toBe(false);
      other.exec('BEGIN IMMEDIATE; ROLLBACK;');
    } finally {
      other.close();
    }
  });
});

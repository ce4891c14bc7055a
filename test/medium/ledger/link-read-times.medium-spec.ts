import { DataSource } from 'typeorm';
import { createLedgerDataSource } from '../../../src/ledger/ledger.data-source';
import { openLedger } from '../../../src/ledger/ledger';
import { LedgerFixture, ledgerEngines, openTestLedger } from '../../support/ledger-fixture';

// Migration LinkReadTimes1764800000000 on a ledger that already holds links: on SQLite, adding a
// column rebuilds the table, which must keep the rows and both unique indexes.
describe.each(ledgerEngines())('links gain read times on an existing ledger (%s)', (engine) => {
  let f: LedgerFixture;
  beforeEach(async () => {
    f = await openTestLedger(engine);
    await f.ledger.close();
  });
  afterEach(async () => {
    await f.cleanup();
  });

  it('keeps every link, with no read time, and the unique indexes', async () => {
    // The fixture's ledger taken back to the migration before this one (the `down`s of the later
    // ones and of this one, newest first), holding a link.
    const options = createLedgerDataSource({ databasePath: f.databasePath, url: f.url }).options;
    const plain = new DataSource({ ...options, migrationsRun: false });
    await plain.initialize();
    const readAtColumns = (): Promise<unknown[]> =>
      plain.query(
        engine === 'postgres'
          ? "SELECT column_name FROM information_schema.columns WHERE table_name = 'links' AND column_name = 'read_at'"
          : "SELECT name FROM pragma_table_info('links') WHERE name = 'read_at'",
      );
    for (let undone = 0; (await readAtColumns()).length > 0 && undone < plain.migrations.length; undone++)
      await plain.undoLastMigration({ transaction: 'all' });
    expect(await readAtColumns()).toHaveLength(0);
    await plain.query(
      `INSERT INTO links (brokerage_id, kind, remote_id, crm_id, content_hash, state, created_at, updated_at) ` +
        (engine === 'postgres'
          ? `VALUES ('b1', 'offer', 'r1', 'c1', 'h1', 'active', now(), now())`
          : `VALUES ('b1', 'offer', 'r1', 'c1', 'h1', 'active', '2026-03-01 12:00:00.000', '2026-03-01 12:00:00.000')`),
    );
    await plain.destroy();

    const ledger = await openLedger({ databasePath: f.databasePath, url: f.url, clock: f.clock });
    try {
      expect(await ledger.links.find('b1', 'offer', 'r1')).toMatchObject({
        crmId: 'c1',
        contentHash: 'h1',
        readAt: null,
      });
      await expect(
        ledger.links.upsertLinks('b1', 'offer', [{ remoteId: 'r2', crmId: 'c1', contentHash: 'h' }]),
      ).rejects.toThrow(/CRM id/);
      const classes = await ledger.links.classify('b1', 'offer', [
        { remoteId: 'r1', contentHash: 'h0', readAt: f.clock.now() },
      ]);
      expect(classes.get('r1')).toBe('changed');
    } finally {
      await ledger.close();
    }
  });
});

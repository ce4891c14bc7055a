import { Run } from '../../../src/ledger/entities';
import { HEARTBEAT_ROWS_KEPT_SECONDS } from '../../../src/ledger/worker-liveness';
import { LedgerFixture, ledgerEngines, openTestLedger } from '../../support/ledger-fixture';

// The heartbeats of workers sharing a PostgreSQL ledger, on the database's clock (the ledger's own
// is a hand-moved ManualClock here, which they must not follow). Portable, so also on SQLite.
describe.each(ledgerEngines())('worker heartbeats (%s)', (engine) => {
  let f: LedgerFixture;
  beforeEach(async () => {
    f = await openTestLedger(engine);
  });
  afterEach(async () => {
    await f.cleanup();
  });

  const ageOld = (owner: string) =>
    f.ledger.dataSource.query(
      engine === 'postgres'
        ? `INSERT INTO worker_heartbeats (owner, beat_at)
           VALUES ($1, (now() AT TIME ZONE 'UTC') - make_interval(secs => $2))`
        : `INSERT INTO worker_heartbeats (owner, beat_at)
           VALUES (?, strftime('%Y-%m-%d %H:%M:%f', 'now', '-' || ? || ' seconds'))`,
      [owner, HEARTBEAT_ROWS_KEPT_SECONDS + 60],
    );

  it("names a PostgreSQL ledger's process by its start, an SQLite one by host and pid", () => {
    expect(f.ledger.owners.self).toMatch(engine === 'postgres' ? /^.+\/\d+#[0-9a-f]{8}$/ : /^.+\/\d+$/);
  });

  it('writes a beat on the database clock, drops rows silent for long, and removes a row on a clean stop', async () => {
    await ageOld('gone/9#00');
    await f.ledger.heartbeats.beat('w/1#aa');
    await f.ledger.heartbeats.beat('w/2#bb');
    await f.ledger.heartbeats.beat('w/1#aa');
    const silences = await f.ledger.heartbeats.silences();
    expect(silences.map((s) => s.owner)).toEqual(['w/1#aa', 'w/2#bb']);
    // The database's now, not the ledger's hand-moved clock (months behind).
    for (const s of silences) expect(Math.abs(s.seconds)).toBeLessThan(30);

    await f.ledger.heartbeats.end('w/2#bb');
    expect((await f.ledger.heartbeats.silences()).map((s) => s.owner)).toEqual(['w/1#aa']);
  });

  it("tells which of a worker's runs are no longer running (taken over)", async () => {
    const a = await f.ledger.runs.start('b1', 'outbox-drain');
    const b = await f.ledger.runs.start('b2', 'outbox-drain');
    await f.ledger.transactions.run((m) => m.update(Run, { id: b.id }, { status: 'interrupted' }));
    expect(await f.ledger.runs.notRunning([a.id, b.id])).toEqual([b.id]);
    expect(await f.ledger.runs.notRunning([])).toEqual([]);
  });
});

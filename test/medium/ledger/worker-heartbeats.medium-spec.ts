import { Run } from '../../../src/ledger/entities';
import { HEARTBEAT_ROWS_KEPT_SECONDS } from '../../../src/ledger/worker-liveness';
import { LedgerFixture, ledgerEngines, openTestLedger } from '../../support/ledger-fixture';
import { waitFor } from '../../support/wait-for';

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

  (engine === 'postgres' ? it : it.skip)(
    'beats over a session of its own, whose pid the row names, and opens another after it is cut',
    async () => {
      const sessionOf = async (owner: string) => {
        const [row] = await f.ledger.dataSource.query<{ session_pid: number }[]>(
          'SELECT session_pid FROM worker_heartbeats WHERE owner = $1',
          [owner],
        );
        const listed = await f.ledger.dataSource.query<{ application_name: string }[]>(
          'SELECT application_name FROM pg_stat_activity WHERE pid = $1',
          [row.session_pid],
        );
        return { pid: row.session_pid, listedAs: listed.map((a) => a.application_name) };
      };
      await f.ledger.heartbeats.beat('w/1#aa');
      const first = await sessionOf('w/1#aa');
      expect(first.listedAs).toEqual(['cash-offer-sync liveness']);
      // Not one of the pool's connections: those come and go.
      const [pooled] = await f.ledger.dataSource.query<{ pid: number }[]>('SELECT pg_backend_pid() AS pid');
      expect(pooled.pid).not.toBe(first.pid);

      // The same session, beat after beat.
      await f.ledger.heartbeats.beat('w/1#aa');
      expect((await sessionOf('w/1#aa')).pid).toBe(first.pid);

      // Cut from the server's side (a restart, a dropped network): the next beat opens another.
      await f.ledger.dataSource.query('SELECT pg_terminate_backend($1)', [first.pid]);
      await waitFor(() => f.ledger.heartbeats.beat('w/1#aa').then(() => true), {
        what: 'a beat over a new session',
      });
      const second = await sessionOf('w/1#aa');
      expect(second.pid).not.toBe(first.pid);
      expect(second.listedAs).toEqual(['cash-offer-sync liveness']);

      // Closed with the ledger: the session is gone (cleanup closes it; checked from outside).
      await f.ledger.heartbeats.close();
      await waitFor(
        async () =>
          (await f.ledger.dataSource.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [second.pid]))
            .length === 0,
        { what: 'the liveness session closed' },
      );
    },
  );

  it("tells which of a worker's runs are no longer running (taken over)", async () => {
    const a = await f.ledger.runs.start('b1', 'outbox-drain');
    const b = await f.ledger.runs.start('b2', 'outbox-drain');
    await f.ledger.transactions.run((m) => m.update(Run, { id: b.id }, { status: 'interrupted' }));
    expect(await f.ledger.runs.notRunning([a.id, b.id])).toEqual([b.id]);
    expect(await f.ledger.runs.notRunning([])).toEqual([]);
  });
});

import type { NewHistoryEntry } from '../../../src/ledger/repositories/history.repository';
import { LedgerFixture, ledgerEngines, openTestLedger } from '../../support/ledger-fixture';
import type { LedgerTransactions } from '../../../src/ledger/ledger-transactions';

const DAY_MS = 24 * 60 * 60 * 1000;

// The decision history on both engines: one hash chain per brokerage, appended by concurrent
// workers without a fork, checked by verify after a hand edit or a removal, and still whole after a prune.
describe.each(ledgerEngines())('decision history (%s)', (engine) => {
  let f: LedgerFixture;
  beforeEach(async () => {
    f = await openTestLedger(engine);
  });
  afterEach(async () => {
    await f.cleanup();
  });

  const entry = (n: number, brokerageId = 'acme', record = 'offer:7012'): NewHistoryEntry => ({
    brokerageId,
    record,
    source: 'daemon',
    kind: 'record_shown',
    summary: `step ${n}`,
    detail: { n, amount: 250_000 + n },
    outcome: 'done',
  });

  it('chains each brokerage’s entries and lists a record’s in order', async () => {
    await f.ledger.history.append([entry(1), entry(2, 'other')]);
    f.clock.advance(1000);
    await f.ledger.history.append([entry(3), entry(4, 'acme', 'request:55')]);
    const acme = await f.ledger.history.list('offer:7012', 'acme');
    expect(acme.map((e) => [e.seq, e.summary])).toEqual([
      [1, 'step 1'],
      [2, 'step 3'],
    ]);
    expect(acme[0].prevHash).toBe('');
    const [request] = await f.ledger.history.list('request:55');
    expect(request.prevHash).toBe(acme[1].hash);
    expect(JSON.parse(request.detail)).toEqual({ amount: 250_004, n: 4 });
    const [other] = await f.ledger.history.list('offer:7012', 'other');
    expect([other.seq, other.prevHash]).toEqual([1, '']);
    await expect(f.ledger.history.verify()).resolves.toEqual({
      ok: true,
      checked: 4,
      brokerages: 2,
      broken: null,
    });
  });

  // On PostgreSQL the appends race on their own connections; on SQLite two connections in one process
  // cannot (better-sqlite3 blocks the thread while it waits for the lock), so they take turns, which
  // still shows the head is read from the ledger and never from what one process appended last.
  it('keeps one chain when two workers append for one brokerage', async () => {
    const other = await f.openAnother();
    const writes: Promise<unknown>[] = [];
    for (let n = 0; n < 20; n += 1) {
      const pair = [
        () => f.ledger.history.append([entry(n * 2)]),
        () => other.history.append([entry(n * 2 + 1), entry(100 + n, 'other')]),
      ];
      if (engine === 'postgres') writes.push(...pair.map((append) => append()));
      else for (const append of pair) await append();
    }
    await Promise.all(writes);
    const entries = await f.ledger.history.list('offer:7012', 'acme');
    expect(entries.map((e) => e.seq)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    for (let i = 1; i < entries.length; i += 1) expect(entries[i].prevHash).toBe(entries[i - 1].hash);
    await expect(other.history.verify()).resolves.toMatchObject({ ok: true, checked: 60 });
  });

  it('names the entry whose summary was edited by hand', async () => {
    await f.ledger.history.append([entry(1), entry(2), entry(3)]);
    const [, second] = await f.ledger.history.list('offer:7012');
    await f.ledger.dataSource.query(
      `UPDATE history_entries SET summary = 'accepted at a better price' WHERE id = ${second.id}`,
    );
    const result = await f.ledger.history.verify('acme');
    expect(result.ok).toBe(false);
    expect(result.broken).toMatchObject({ id: second.id, seq: 2, record: 'offer:7012' });
    expect(result.broken?.reason).toMatch(/edited/);
  });

  it('names where an entry was removed, in the middle or at the end', async () => {
    await f.ledger.history.append([entry(1), entry(2), entry(3), entry(4)]);
    const all = await f.ledger.history.list('offer:7012');
    await f.ledger.dataSource.query(`DELETE FROM history_entries WHERE id = ${all[1].id}`);
    const middle = await f.ledger.history.verify();
    expect(middle.broken).toMatchObject({ id: all[2].id, seq: 3 });
    expect(middle.broken?.reason).toMatch(/entry 2 .*missing/);

    await f.ledger.dataSource.query(
      `DELETE FROM history_entries WHERE id IN (${all[0].id}, ${all[2].id}, ${all[3].id})`,
    );
    const end = await f.ledger.history.verify();
    expect(end.ok).toBe(false);
    expect(end.broken?.reason).toMatch(/head is entry 4/);
  });

  // An operator verifies while the daemon (or another worker) goes on appending: entries that arrive
  // between verify's reads are the chain growing, not a tamper. The 200-kill soak on seed 20261239
  // ran `history --verify` beside three live workers and was told "the last entries were removed".
  describe('while another process appends or prunes', () => {
    // Runs `meanwhile` right after verify's `n`th read of the ledger has finished.
    const between = (n: number, meanwhile: () => Promise<unknown>) => {
      const tx = (f.ledger.history as unknown as { tx: LedgerTransactions }).tx;
      const read = tx.exclusive.bind(tx);
      let reads = 0;
      jest.spyOn(tx, 'exclusive').mockImplementation(async (work) => {
        const result = await read(work);
        reads += 1;
        if (reads === n) await meanwhile();
        return result;
      });
    };

    it('takes entries appended after it read the head as the chain grown, and checks them too', async () => {
      await f.ledger.history.append([entry(1), entry(2)]);
      const other = await f.openAnother();
      between(1, () => other.history.append([entry(3), entry(4)]));
      await expect(f.ledger.history.verify('acme')).resolves.toEqual({
        ok: true,
        checked: 4,
        brokerages: 1,
        broken: null,
      });
    });

    it('starts again from the new anchor when a prune removed the entries it was about to read', async () => {
      await f.ledger.history.append([entry(1), entry(2)]);
      f.clock.advance(10 * DAY_MS);
      await f.ledger.history.append([entry(3)]);
      const other = await f.openAnother();
      between(1, () =>
        other.retention.prune({
          olderThan: f.clock.now(),
          historyOlderThan: new Date(f.clock.nowMs() - DAY_MS),
        }),
      );
      await expect(f.ledger.history.verify('acme')).resolves.toMatchObject({ ok: true, checked: 1 });
    });

    it('still names an entry past the head that no append made', async () => {
      await f.ledger.history.append([entry(1), entry(2)]);
      const [, second] = await f.ledger.history.list('offer:7012');
      await f.ledger.dataSource.query(
        `INSERT INTO history_entries (brokerage_id, seq, at, record, source, kind, summary, detail, outcome, prev_hash, hash)
         SELECT brokerage_id, 3, at, record, source, kind, 'accepted at a better price', detail, outcome, hash, hash
         FROM history_entries WHERE id = ${second.id}`,
      );
      const result = await f.ledger.history.verify('acme');
      expect(result.ok).toBe(false);
      expect(result.broken).toMatchObject({ seq: 3, record: 'offer:7012' });
      expect(result.broken?.reason).toMatch(/past the chain's head \(entry 2\)/);
    });
  });

  it('prunes whole prefixes older than the history cutoff, leaves a chain verify accepts, and ignores RETENTION_DAYS', async () => {
    await f.ledger.history.append([entry(1), entry(2)]);
    f.clock.advance(10 * DAY_MS);
    await f.ledger.history.append([entry(3), entry(1, 'other')]);
    f.clock.advance(10 * DAY_MS);
    await f.ledger.history.append([entry(4)]);

    const runsOnly = await f.ledger.retention.prune({ olderThan: f.clock.now() });
    expect(runsOnly.history).toBe(0);

    const counts = await f.ledger.retention.prune({
      olderThan: f.clock.now(),
      historyOlderThan: new Date(f.clock.nowMs() - 5 * DAY_MS),
    });
    // acme's entries 1-3 and other's only entry: all from before the cutoff.
    expect(counts.history).toBe(4);
    const kept = await f.ledger.history.list('offer:7012');
    expect(kept.map((e) => [e.brokerageId, e.summary])).toEqual([['acme', 'step 4']]);
    await expect(f.ledger.history.verify()).resolves.toMatchObject({ ok: true, checked: 1 });

    await f.ledger.history.append([entry(5)]);
    await expect(f.ledger.history.verify('acme')).resolves.toMatchObject({ ok: true, checked: 2 });
    const [, fifth] = await f.ledger.history.list('offer:7012', 'acme');
    await f.ledger.dataSource.query(`DELETE FROM history_entries WHERE id = ${kept[0].id}`);
    const result = await f.ledger.history.verify('acme');
    expect(result.broken).toMatchObject({ id: fifth.id });
  });

  it('appends a new outbox command’s entries in its own transaction, and none for a duplicate key', async () => {
    const command = {
      brokerageId: 'acme',
      idempotencyKey: 'acme|offer:7012|counter_offer',
      operation: 'counter_offer',
      recordRef: 'deal:901',
      payload: { offerId: 7012 },
    };
    const record = (c: { id: number }) => [
      { ...entry(1), kind: 'command_queued', summary: `command ${c.id}` },
    ];
    const first = await f.ledger.outbox.enqueue(command, record);
    const again = await f.ledger.outbox.enqueue(command, record);
    expect([first.created, again.created]).toEqual([true, false]);
    const entries = await f.ledger.history.list('offer:7012');
    expect(entries.map((e) => e.summary)).toEqual([`command ${first.command.id}`]);
    // Entries that cannot be written take their command with them.
    const refused = f.ledger.outbox.enqueue({ ...command, idempotencyKey: 'other' }, () => {
      throw new Error('history unavailable');
    });
    await expect(refused).rejects.toThrow('history unavailable');
    await expect(f.ledger.outbox.findByKey('other')).resolves.toBeNull();
  });

  it('exports a date range, one brokerage or all', async () => {
    await f.ledger.history.append([entry(1), entry(1, 'other')]);
    f.clock.advance(DAY_MS);
    const from = f.clock.now();
    await f.ledger.history.append([entry(2), entry(2, 'other')]);
    f.clock.advance(DAY_MS);
    await f.ledger.history.append([entry(3)]);
    const collect = async (filter: Parameters<typeof f.ledger.history.export>[0]) => {
      const out: string[] = [];
      for await (const e of f.ledger.history.export(filter)) out.push(`${e.brokerageId} ${e.summary}`);
      return out;
    };
    const to = new Date(from.getTime() + DAY_MS);
    await expect(collect({ from, to })).resolves.toEqual(['acme step 2', 'other step 2']);
    await expect(collect({ from, to: f.clock.now(), brokerageId: 'acme' })).resolves.toEqual(['acme step 2']);
  });
});

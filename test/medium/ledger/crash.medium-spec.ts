import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureLedgerChildBuilt, runAndKill } from '../../support/ledger-children';

const KILLS = 55;

// Kills a child writing through the repositories with SIGKILL at random moments: every write it
// reported committed must be there, nothing twice, and the file must pass integrity_check every time.
describe('ledger crash safety', () => {
  let dir: string;
  let child: string;
  beforeAll(() => {
    child = ensureLedgerChildBuilt('ledger-crash-child');
    dir = mkdtempSync(join(tmpdir(), 'ledger-crash-'));
  }, 120_000);
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it(`loses no reported write across ${KILLS} kills`, async () => {
    const databasePath = join(dir, 'ledger.sqlite');
    const reported = {
      outbox: new Map<string, number>(),
      done: new Set<number>(),
      inbox: new Map<string, number>(),
    };
    const links: string[] = [];
    let cursor = 0;
    let writes = 0;
    for (let generation = 1; generation <= KILLS; generation += 1) {
      // Random moments: anywhere from just after start-up to a few hundred writes in.
      const run = await runAndKill(child, databasePath, generation, Math.floor(Math.random() * 250));
      for (const [kind, a, b] of run.lines) {
        writes += 1;
        if (kind === 'outbox') reported.outbox.set(a, Number(b));
        else if (kind === 'done') reported.done.add(Number(a));
        else if (kind === 'inbox') reported.inbox.set(a, Number(b));
        else if (kind === 'links') links.push(a);
        else if (kind === 'cursor') cursor = Math.max(cursor, Number(a));
      }

      const db = new Database(databasePath, { readonly: true });
      try {
        expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
        // Every write reported so far (by this generation or an earlier one) is checked after every
        // kill, against whole tables read once: a check per write, query by query, grows with the
        // square of the writes and cost more than the kills themselves. Each list below names the
        // writes that are not as reported, so a failure shows them all.
        const outboxRows = db.prepare('SELECT idempotency_key k, id, state FROM outbox_commands').all() as {
          k: string;
          id: number;
          state: string;
        }[];
        const outbox = new Map(outboxRows.map((r) => [r.k, r]));
        const stateOf = new Map(outboxRows.map((r) => [r.id, r.state]));
        expect([...reported.outbox].filter(([key, id]) => outbox.get(key)?.id !== id)).toEqual([]);
        expect([...reported.done].filter((id) => stateOf.get(id) !== 'done')).toEqual([]);
        const inboxRows = db.prepare('SELECT dedupe_key k, id FROM inbox_events').all() as {
          k: string;
          id: number;
        }[];
        const inbox = new Map(inboxRows.map((r) => [r.k, r.id]));
        expect([...reported.inbox].filter(([key, id]) => inbox.get(key) !== id)).toEqual([]);
        // An offer link's remote id is `<key>-<j>` (the child's keys are `g<generation>-<i>`, no
        // further dash), so the part before the last dash names the write that made it.
        const offerLinks = new Map<string, number>();
        for (const { remoteId } of db
          .prepare("SELECT remote_id remoteId FROM links WHERE kind = 'offer'")
          .all() as { remoteId: string }[]) {
          const key = remoteId.slice(0, remoteId.lastIndexOf('-'));
          offerLinks.set(key, (offerLinks.get(key) ?? 0) + 1);
        }
        expect(links.filter((key) => offerLinks.get(key) !== 20)).toEqual([]);
        // The cursor is never behind what was reported, and never ahead of the writes it covers.
        const stored = db.prepare("SELECT cursor FROM cursors WHERE stream = 'crash-test'").get() as
          { cursor: string } | undefined;
        const storedPage = Number(stored?.cursor ?? 0);
        expect(storedPage).toBeGreaterThanOrEqual(cursor);
        expect(db.prepare("SELECT COUNT(*) n FROM links WHERE kind = 'page'").get()).toEqual({
          n: storedPage * 5,
        });
        // No duplicates anywhere, and nothing left in a state a restart would not repair.
        for (const [table, column] of [
          ['outbox_commands', 'idempotency_key'],
          ['inbox_events', 'dedupe_key'],
          ['links', 'remote_id'],
        ]) {
          expect(
            db.prepare(`SELECT ${column} FROM ${table} GROUP BY ${column} HAVING COUNT(*) > 1`).all(),
          ).toEqual([]);
        }
      } finally {
        db.close();
      }
    }
    // The kills must have landed in the middle of real work, not only before it started.
    expect(writes).toBeGreaterThan(KILLS * 5);
    expect(reported.done.size).toBeGreaterThan(KILLS);
    // ~40 s alone; the margin is for a machine shared with other test workers.
  }, 180_000);
});

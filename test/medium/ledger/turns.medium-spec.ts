import { LedgerTurns } from '../../../src/ledger/ledger-turns';
import { LedgerFixture, ledgerEngines, openTestLedger } from '../../support/ledger-fixture';
import { waitFor } from '../../support/wait-for';

// Turns on a key (a brokerage's offer writes): one at a time in a process on either engine, and one
// at a time across workers sharing a PostgreSQL ledger, which run a brokerage's jobs side by side.
describe.each(ledgerEngines())('ledger turns (%s)', (engine) => {
  let f: LedgerFixture;
  beforeEach(async () => {
    f = await openTestLedger(engine);
  });
  afterEach(async () => {
    await f.cleanup();
  });

  const gate = () => {
    let open!: () => void;
    const opened = new Promise<void>((resolve) => (open = resolve));
    return { open, opened };
  };

  it('runs one turn at a time per key in a process, in order, and other keys meanwhile', async () => {
    const turns = f.ledger.turns;
    const log: string[] = [];
    const first = gate();
    const a = turns.run('offers:acme', async () => {
      log.push('a start');
      await first.opened;
      log.push('a end');
    });
    const b = turns.run('offers:acme', async () => {
      log.push('b');
    });
    await turns.run('offers:other', async () => {
      log.push('other');
    });
    await waitFor(() => log.includes('a start'), { what: 'the first turn to start', intervalMs: 10 });
    first.open();
    await Promise.all([a, b]);
    expect(log.indexOf('other')).toBeLessThan(log.indexOf('a end'));
    expect(log.filter((l) => l !== 'other')).toEqual(['a start', 'a end', 'b']);
  });

  it('a failed turn lets the next one run', async () => {
    const turns = f.ledger.turns;
    await expect(turns.run('offers:acme', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(turns.run('offers:acme', async () => 'next')).resolves.toBe('next');
  });

  // Another process of the ledger: a worker on PostgreSQL, the operator's `cli sync` on SQLite (its
  // own connection, and on SQLite its own owner, which sees this process alive).
  const anotherProcess = async (): Promise<LedgerTurns> => {
    const other = await f.openAnother();
    return new LedgerTurns(
      other.dataSource,
      other.transactions,
      { self: 'another-host/4242', alive: (owner) => owner === f.ledger.owners.self },
      10,
    );
  };

  it("another process's turn on the same key waits for this one to end; other keys do not", async () => {
    const here = f.ledger.turns;
    const there = await anotherProcess();
    const log: string[] = [];
    const first = gate();
    const held = here.run('offers:acme', async () => {
      log.push('here start');
      await first.opened;
      log.push('here end');
    });
    let waiting: Promise<void> | undefined;
    // Whatever fails below, the held turn ends, so the ledgers can close.
    try {
      await waitFor(() => log.includes('here start'), {
        what: "this process's turn to start",
        intervalMs: 10,
      });
      waiting = there.run('offers:acme', async () => {
        log.push('there');
      });
      await there.run('offers:other', async () => {
        log.push('there other');
      });
      // The other worker asked and was told to wait: it has not started its turn.
      await waitFor(() => there.waiting === 1, {
        what: 'the other process to wait for the turn',
        intervalMs: 10,
      });
      expect(log).toEqual(['here start', 'there other']);
    } finally {
      first.open();
    }

    await Promise.all([held, waiting]);
    expect(log).toEqual(['here start', 'there other', 'here end', 'there']);
    expect(there.waiting).toBe(0);
    // Nothing left locked: a turn from either side goes straight through.
    await here.run('offers:acme', async () => undefined);
    await there.run('offers:acme', async () => undefined);
  });

  if (engine === 'sqlite')
    it('takes over the turn of a process that died holding it (killed mid-turn)', async () => {
      const there = await anotherProcess();
      const held = gate();
      let started = false;
      const dying = there.run('offers:acme', async () => {
        started = true;
        await held.opened;
      });
      await waitFor(() => started, { what: "the other process's turn to start", intervalMs: 10 });
      // The other process took its row, then died: its row names a holder no longer alive.
      await f.ledger.transactions.run((m) =>
        m.query("UPDATE ledger_turns SET owner = 'gone-host/1' WHERE key = 'offers:acme'"),
      );
      await expect(f.ledger.turns.run('offers:acme', async () => 'taken over')).resolves.toBe('taken over');
      held.open();
      await dying;
    });
});

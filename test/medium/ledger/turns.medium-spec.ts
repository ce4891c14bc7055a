import { LedgerTurns } from '../../../src/ledger/ledger-turns';
import { LedgerFixture, ledgerEngines, openTestLedger } from '../../support/ledger-fixture';

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
  const until = async (check: () => boolean, timeoutMs = 10_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!check()) {
      if (Date.now() > deadline) throw new Error('condition not met before the deadline');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
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
    await until(() => log.includes('a start'));
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

  if (engine === 'postgres')
    it("another worker's turn on the same key waits for this one to end; other keys do not", async () => {
      const here = f.ledger.turns;
      const there: LedgerTurns = (await f.openAnother()).turns;
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
        await until(() => log.includes('here start'));
        waiting = there.run('offers:acme', async () => {
          log.push('there');
        });
        await there.run('offers:other', async () => {
          log.push('there other');
        });
        // The other worker asked and was told to wait: it has not started its turn.
        await until(() => there.waiting === 1);
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
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../src/common/clock';
// Not from the ledger's index: that pulls in @nestjs/common, which is ESM-only and jest cannot load.
import { Ledger, openLedger } from '../../src/ledger/ledger';
import { createTestPostgresDatabase, testPostgresUrl } from './postgres-database';

export type LedgerEngine = 'sqlite' | 'postgres';

export interface LedgerFixture {
  ledger: Ledger;
  clock: ManualClock;
  engine: LedgerEngine;
  dir: string;
  databasePath: string;
  // The PostgreSQL database's URL; undefined on SQLite.
  url: string | undefined;
  // Another Ledger on the same database, as a second worker would open it (closed by cleanup).
  openAnother(): Promise<Ledger>;
  cleanup(): Promise<void>;
}

// The engines the ledger suites run on: both when the test PostgreSQL server is up (jest's global
// setup starts it), SQLite alone when it was turned off (LEDGER_TEST_POSTGRES=off).
export function ledgerEngines(): LedgerEngine[] {
  return testPostgresUrl() ? ['sqlite', 'postgres'] : ['sqlite'];
}

// A fresh ledger (a file in its own temp dir, or a database of its own on the test PostgreSQL
// server), with migrations applied and a hand-moved clock.
export async function openTestLedger(engine: LedgerEngine = 'sqlite'): Promise<LedgerFixture> {
  const dir = mkdtempSync(join(tmpdir(), 'ledger-test-'));
  const databasePath = join(dir, 'ledger.sqlite');
  const clock = new ManualClock(new Date('2026-03-01T12:00:00.000Z'));
  const database = engine === 'postgres' ? await createTestPostgresDatabase() : undefined;
  const url = database?.url;
  const ledger = await openLedger({ databasePath, url, clock });
  const others: Ledger[] = [];
  return {
    ledger,
    clock,
    engine,
    dir,
    databasePath,
    url,
    openAnother: async () => {
      const other = await openLedger({ databasePath, url, clock });
      others.push(other);
      return other;
    },
    cleanup: async () => {
      for (const other of others) await other.close();
      await ledger.close();
      await database?.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

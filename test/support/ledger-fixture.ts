import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../src/common/clock';
// Not from the ledger's index: that pulls in @nestjs/common, which is ESM-only and jest cannot load.
import { Ledger, openLedger } from '../../src/ledger/ledger';

export interface LedgerFixture {
  ledger: Ledger;
  clock: ManualClock;
  dir: string;
  databasePath: string;
  cleanup(): Promise<void>;
}

// A fresh ledger file in its own temp dir, with migrations applied and a hand-moved clock.
export async function openTestLedger(): Promise<LedgerFixture> {
  const dir = mkdtempSync(join(tmpdir(), 'ledger-test-'));
  const databasePath = join(dir, 'ledger.sqlite');
  const clock = new ManualClock(new Date('2026-03-01T12:00:00.000Z'));
  const ledger = await openLedger({ databasePath, clock });
  return {
    ledger,
    clock,
    dir,
    databasePath,
    cleanup: async () => {
      await ledger.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

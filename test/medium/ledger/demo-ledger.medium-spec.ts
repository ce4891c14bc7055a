import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resetDemoLedger } from '../../../embedded/embedded-simulators';
import type { LoadedBrokerage } from '../../../src/config/config.loader';
import { openLedger } from '../../../src/ledger';
import { readLedgerPurpose } from '../../../src/ledger/ledger-meta';

const demo = { id: 'demo', file: 'demo.yaml', config: { simulated: true } } as unknown as LoadedBrokerage;

// resetDemoLedger deletes only a file that says it is a demo's ledger, whatever path it is given.
describe('resetDemoLedger', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'cos-demo-ledger-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('creates a fresh ledger marked as a demo, and resets it at the next start', async () => {
    const path = join(dir, 'ledger.sqlite');
    expect(await resetDemoLedger([demo], {}, path)).toBe(true);
    expect(readLedgerPurpose(path)).toBe('demo');
    const ledger = await openLedger({ databasePath: path });
    await ledger.runs.start('demo', 'marketplace');
    await ledger.close();

    expect(await resetDemoLedger([demo], {}, path)).toBe(true);
    const again = await openLedger({ databasePath: path });
    expect(await again.runs.list()).toHaveLength(0);
    await again.close();
  });

  it('refuses to delete a ledger that is not marked, and leaves it as it was', async () => {
    const path = join(dir, 'ledger.sqlite');
    const ledger = await openLedger({ databasePath: path });
    await ledger.runs.start('acme', 'marketplace');
    await ledger.close();

    await expect(resetDemoLedger([demo], {}, path)).rejects.toThrow(
      `refusing to delete ${path} to start the demo afresh: it is not marked as a demo ledger`,
    );
    const after = await openLedger({ databasePath: path });
    expect(await after.runs.list()).toHaveLength(1);
    await after.close();
  });

  it('does nothing when LEDGER_PATH is set or a brokerage is real', async () => {
    const path = join(dir, 'ledger.sqlite');
    const real = { id: 'acme', file: 'acme.yaml', config: {} } as unknown as LoadedBrokerage;
    expect(await resetDemoLedger([demo], { LEDGER_PATH: path }, path)).toBe(false);
    expect(await resetDemoLedger([demo, real], {}, path)).toBe(false);
    expect(existsSync(path)).toBe(false);
  });
});

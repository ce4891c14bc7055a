import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureLedgerChildBuilt } from '../../support/ledger-children';

// LedgerModule runs in a child from dist/: jest cannot load NestJS 12 (ESM-only), Node 20 can.
describe('LedgerModule', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'ledger-module-'));
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('provides the ledger and every repository, uses the global Clock and closes on shutdown', () => {
    const child = ensureLedgerChildBuilt('ledger-module-child');
    const result = spawnSync(process.execPath, [child, join(dir, 'ledger.sqlite')], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toEqual({
      sameAsLedger: [true, true, true, true, true, true, true, true],
      createdAt: '2026-05-01T00:00:00.000Z',
      closed: true,
    });
  }, 120_000);
});

import { chmodSync, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pidFilePath, writePidFile } from '../../../src/app/daemon-pid.file';
import { openLedger } from '../../../src/ledger';
import { backupLedger } from '../../../src/ledger/ledger-backup';

const mode = (path: string): string => (statSync(path).mode & 0o777).toString(8);

// The ledger, its WAL and SHM, the pid file and backups hold sellers' names and addresses and
// agents' emails: only the daemon's user may read them (they used to be 0644).
describe('files holding personal data', () => {
  let dir: string;
  let previousUmask: number;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'cos-private-'));
    // The usual umask, which left these files world-readable.
    previousUmask = process.umask(0o022);
  });
  afterEach(() => {
    process.umask(previousUmask);
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates the ledger, its WAL and SHM 0600, and tightens ones an older version left 0644', async () => {
    const path = join(dir, 'ledger.sqlite');
    const ledger = await openLedger({ databasePath: path });
    await ledger.runs.start('acme', 'marketplace');
    expect([mode(path), mode(`${path}-wal`), mode(`${path}-shm`)]).toEqual(['600', '600', '600']);
    await ledger.close();

    const old = join(dir, 'old.sqlite');
    writeFileSync(old, '');
    chmodSync(old, 0o644);
    const reopened = await openLedger({ databasePath: old });
    expect(mode(old)).toBe('600');
    await reopened.close();
  });

  it('writes the pid file 0600', () => {
    const ledgerPath = join(dir, 'ledger.sqlite');
    writePidFile(ledgerPath, 4242);
    expect(mode(pidFilePath(ledgerPath))).toBe('600');
  });

  it('backs up a ledger in use (WAL included) to a new 0600 file, and never overwrites one', async () => {
    const path = join(dir, 'ledger.sqlite');
    const ledger = await openLedger({ databasePath: path });
    for (let i = 0; i < 3; i++) await ledger.runs.start('acme', `job-${i}`);
    // The daemon keeps the ledger open: the runs are in the WAL, not yet in ledger.sqlite.
    const destination = join(dir, 'backups', 'nested', 'ledger-1.sqlite');
    const { bytes } = await backupLedger(path, destination);
    expect(bytes).toBeGreaterThan(0);
    expect(mode(destination)).toBe('600');
    const copy = await openLedger({ databasePath: destination });
    expect(await copy.runs.list()).toHaveLength(3);
    await copy.close();

    await expect(backupLedger(path, destination)).rejects.toThrow(
      `refusing to overwrite ${destination}: it already exists; give a new path`,
    );
    await expect(backupLedger(path, path)).rejects.toThrow('refusing to overwrite');
    await expect(backupLedger(path, `${path}-shm`)).rejects.toThrow(
      'it is the ledger or one of its own files',
    );
    await expect(backupLedger(path, `${path}-journal`)).rejects.toThrow(
      'it is the ledger or one of its own files',
    );
    expect(existsSync(`${path}-journal`)).toBe(false);
    expect(await ledger.runs.list()).toHaveLength(3);
    await ledger.close();
    await expect(backupLedger(join(dir, 'missing.sqlite'), join(dir, 'b.sqlite'))).rejects.toThrow(
      'no ledger at',
    );
    expect(existsSync(join(dir, 'b.sqlite'))).toBe(false);
  });
});

import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { claimPidFile } from './daemon-pid.file';

describe('claimPidFile', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'pid-file-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it.each(['daemon.pid', 'daemon.reload.json'])(
    'refuses a ledger named like its own %s, and leaves the ledger as it was',
    (name) => {
      const ledger = join(dir, name);
      writeFileSync(ledger, 'SQLite format 3\u0000 the operator data');
      expect(() => claimPidFile(ledger)).toThrow(/give the ledger another name/);
      expect(readFileSync(ledger, 'utf8')).toBe('SQLite format 3\u0000 the operator data');
    },
  );

  it('writes the pid beside any other ledger', () => {
    const ledger = join(dir, 'ledger.sqlite');
    claimPidFile(ledger);
    expect(readFileSync(join(dir, 'daemon.pid'), 'utf8').trim()).toBe(String(process.pid));
    expect(existsSync(ledger)).toBe(false);
  });

  it.each(['daemon.pid', 'daemon.reload.json'])(
    'refuses to start over a ledger or backup left where it keeps its %s, and leaves it as it was',
    (name) => {
      const backup = join(dir, name);
      writeFileSync(backup, 'SQLite format 3\u0000 the operator backup');
      expect(() => claimPidFile(join(dir, 'ledger.sqlite'))).toThrow(
        /is a SQLite database.*move it elsewhere/,
      );
      expect(readFileSync(backup, 'utf8')).toBe('SQLite format 3\u0000 the operator backup');
    },
  );

  it('takes over a pid file an earlier daemon left behind', () => {
    writeFileSync(join(dir, 'daemon.pid'), '999999999\n');
    claimPidFile(join(dir, 'ledger.sqlite'));
    expect(readFileSync(join(dir, 'daemon.pid'), 'utf8').trim()).toBe(String(process.pid));
  });

  it('refuses a pid file that is a link, and leaves what it points at as it was', () => {
    const backup = join(dir, 'ledger-backup.sqlite');
    writeFileSync(backup, 'SQLite format 3\u0000 the operator backup');
    symlinkSync(backup, join(dir, 'daemon.pid'));
    expect(() => claimPidFile(join(dir, 'ledger.sqlite'))).toThrow(/is a symbolic link/);
    expect(readFileSync(backup, 'utf8')).toBe('SQLite format 3\u0000 the operator backup');
  });
});

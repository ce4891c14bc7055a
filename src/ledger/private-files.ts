import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

// The ledger and everything copied from it hold sellers' names and addresses and agents' emails:
// only the daemon's own user may read them.
export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_DIR_MODE = 0o700;

// Creates the file 0600 if it is missing, and takes an existing one down to 0600.
export function ensurePrivateFile(path: string): void {
  if (existsSync(path)) chmodSync(path, PRIVATE_FILE_MODE);
  else closeSync(openSync(path, 'a', PRIVATE_FILE_MODE));
}

// SQLite creates `-wal` and `-shm` with the database file's own mode, so a 0600 ledger gets 0600
// companions; ones left by an older version are tightened here.
export function ensurePrivateLedgerFiles(ledgerPath: string): void {
  if (ledgerPath === ':memory:' || ledgerPath === '') return;
  ensurePrivateFile(ledgerPath);
  for (const suffix of ['-wal', '-shm', '-journal'])
    if (existsSync(`${ledgerPath}${suffix}`)) chmodSync(`${ledgerPath}${suffix}`, PRIVATE_FILE_MODE);
}

// A new file for a copy of the ledger: created 0600 and exclusively, so an existing file (an older
// backup, the ledger itself) is never overwritten. Its directory is created 0700 when missing.
export function createPrivateFileExclusively(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: PRIVATE_DIR_MODE });
  try {
    closeSync(openSync(path, 'wx', PRIVATE_FILE_MODE));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST')
      throw new Error(`refusing to overwrite ${path}: it already exists; give a new path`, { cause: error });
    throw error;
  }
}

// The ledger file and the journal files SQLite keeps beside it (absent while it is closed), resolved:
// no file the tool writes or removes for its own use may be one of them.
export function isLedgerFile(ledgerPath: string, path: string): boolean {
  return ['', '-wal', '-shm', '-journal'].some(
    (suffix) => resolve(`${ledgerPath}${suffix}`) === resolve(path),
  );
}

import {
  chmodSync,
  closeSync,
  lstatSync,
  openSync,
  readFileSync,
  readSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { isLedgerFile, PRIVATE_FILE_MODE } from '../ledger/private-files';
import { reloadVerdictPath } from './reload-verdict.file';
import { dirname, join } from 'node:path';

// The running daemon's pid, next to the ledger, so `cli reload-config` can send it SIGHUP.
export function pidFilePath(ledgerPath: string): string {
  return join(dirname(ledgerPath), 'daemon.pid');
}

// 0600 like the ledger beside it (mode applies on creation; chmod covers a file left by an older run).
export function writePidFile(ledgerPath: string, pid = process.pid): void {
  writeFileSync(pidFilePath(ledgerPath), `${pid}\n`, { mode: PRIVATE_FILE_MODE });
  chmodSync(pidFilePath(ledgerPath), PRIVATE_FILE_MODE);
}

export function removePidFile(ledgerPath: string, pid = process.pid): void {
  // Only our own: a second daemon started by mistake must not remove the first one's file.
  if (readPidFile(ledgerPath) === pid) rmSync(pidFilePath(ledgerPath), { force: true });
}

export function readPidFile(ledgerPath: string): number | undefined {
  try {
    const pid = Number(readFileSync(pidFilePath(ledgerPath), 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0); // signal 0: only checks that the process exists
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

// Refuses to start when a live daemon already holds this ledger; otherwise writes our pid and removes
// it when the process exits.
export function claimPidFile(ledgerPath: string): void {
  // The files the daemon writes beside the ledger would overwrite a ledger of the same name: refused
  // before anything is written.
  for (const own of [pidFilePath(ledgerPath), reloadVerdictPath(ledgerPath)]) {
    if (isLedgerFile(ledgerPath, own))
      throw new Error(
        `LEDGER_PATH ${ledgerPath}: the daemon keeps ${own} beside the ledger; give the ledger another name`,
      );
    // Written through, a link would overwrite whatever it points at (the ledger, a backup).
    const found = lstatSync(own, { throwIfNoEntry: false });
    if (found?.isSymbolicLink())
      throw new Error(`${own} is a symbolic link; the daemon writes that file itself: remove the link`);
    // A ledger or a backup put there while the daemon was stopped would be written over.
    if (found?.isFile() && isSqliteFile(own))
      throw new Error(
        `${own} is a SQLite database (a ledger or a backup?); the daemon writes that file itself: move it elsewhere`,
      );
  }
  const other = readPidFile(ledgerPath);
  if (other !== undefined && other !== process.pid && isProcessAlive(other)) {
    throw new Error(
      `another daemon (pid ${other}) is using the ledger ${ledgerPath}; stop it first, or set LEDGER_PATH (${pidFilePath(ledgerPath)})`,
    );
  }
  writePidFile(ledgerPath);
  process.once('exit', () => removePidFile(ledgerPath));
}

const SQLITE_HEADER = 'SQLite format 3\u0000';

function isSqliteFile(path: string): boolean {
  const fd = openSync(path, 'r');
  try {
    const head = Buffer.alloc(SQLITE_HEADER.length);
    return readSync(fd, head, 0, head.length, 0) === head.length && head.toString('latin1') === SQLITE_HEADER;
  } finally {
    closeSync(fd);
  }
}

import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

// The running daemon's pid, next to the ledger, so `cli reload-config` can send it SIGHUP.
export function pidFilePath(ledgerPath: string): string {
  return join(dirname(ledgerPath), 'daemon.pid');
}

export function writePidFile(ledgerPath: string, pid = process.pid): void {
  writeFileSync(pidFilePath(ledgerPath), `${pid}\n`);
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

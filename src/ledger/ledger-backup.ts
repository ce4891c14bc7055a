import Database from 'better-sqlite3';
import { chmodSync, existsSync, rmSync, statSync } from 'node:fs';
import { createPrivateFileExclusively, PRIVATE_FILE_MODE } from './private-files';

// SQLite's online backup: a consistent copy (WAL content included) while the daemon keeps writing,
// page by page, so the daemon's writes are only briefly held up. The copy is 0600 and never
// overwrites an existing file.
export async function backupLedger(ledgerPath: string, destination: string): Promise<{ bytes: number }> {
  if (!existsSync(ledgerPath)) throw new Error(`no ledger at ${ledgerPath} (LEDGER_PATH) to back up`);
  createPrivateFileExclusively(destination);
  const db = new Database(ledgerPath, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    await db.backup(destination);
  } catch (error) {
    rmSync(destination, { force: true });
    throw error;
  } finally {
    db.close();
  }
  chmodSync(destination, PRIVATE_FILE_MODE);
  return { bytes: statSync(destination).size };
}

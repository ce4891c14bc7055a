import Database from 'better-sqlite3';
import { chmodSync, existsSync, lstatSync, rmSync, statSync } from 'node:fs';
import { createPrivateFileExclusively, isLedgerFile, PRIVATE_FILE_MODE } from './private-files';

// SQLite's online backup: a consistent copy (WAL content included) while the daemon keeps writing,
// page by page, so the daemon's writes are only briefly held up. The copy is 0600 and never
// overwrites an existing file.
export async function backupLedger(ledgerPath: string, destination: string): Promise<{ bytes: number }> {
  if (!existsSync(ledgerPath)) throw new Error(`no ledger at ${ledgerPath} (LEDGER_PATH) to back up`);
  // The ledger's WAL and SHM may be absent while the daemon is stopped; a copy made there (and
  // removed again on a failed backup) would be read as the ledger's own journal.
  if (isLedgerFile(ledgerPath, destination))
    throw new Error(
      `refusing to overwrite ${destination}: it is the ledger or one of its own files; give a new path`,
    );
  // Opened first: a ledger that cannot be opened leaves no empty copy behind.
  const db = new Database(ledgerPath, { fileMustExist: true });
  let created;
  try {
    createPrivateFileExclusively(destination);
    created = lstatSync(destination);
  } catch (error) {
    db.close();
    throw error;
  }
  try {
    db.pragma('busy_timeout = 5000');
    await db.backup(destination);
  } catch (error) {
    // Only the file this call created (exclusively, above) is removed: not whatever was put at the
    // path meanwhile (a link to the ledger, a backup moved there).
    const now = lstatSync(destination, { throwIfNoEntry: false });
    if (now?.isFile() && now.ino === created.ino && now.dev === created.dev)
      rmSync(destination, { force: true });
    throw error;
  } finally {
    db.close();
  }
  chmodSync(destination, PRIVATE_FILE_MODE);
  return { bytes: statSync(destination).size };
}

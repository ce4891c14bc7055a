import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import type { DataSource } from 'typeorm';

// The `purpose` a ledger file declares about itself (ledger_meta, migration 1764000000000).
export const LEDGER_PURPOSE_KEY = 'purpose';
export const DEMO_LEDGER_PURPOSE = 'demo';

export async function markLedgerPurpose(dataSource: DataSource, purpose: string): Promise<void> {
  await dataSource.query(
    'INSERT INTO ledger_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
    [LEDGER_PURPOSE_KEY, purpose],
  );
}

// Read straight from the file, without migrating it: a ledger from before ledger_meta existed, or
// any file that is not a ledger at all, has no purpose and so is nobody's demo.
export function readLedgerPurpose(path: string): string | undefined {
  if (!existsSync(path)) return undefined;
  let db: Database.Database | undefined;
  try {
    db = new Database(path, { fileMustExist: true });
    const row = db.prepare('SELECT value FROM ledger_meta WHERE key = ?').get(LEDGER_PURPOSE_KEY) as
      { value: string } | undefined;
    return row?.value;
  } catch {
    return undefined;
  } finally {
    db?.close();
  }
}

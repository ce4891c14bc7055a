import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeHistoryExport } from './history-export.writer';

async function* none(): AsyncIterable<never> {}

describe('writeHistoryExport', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'history-export-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses an existing file and leaves it as it was (a mistyped path may name the ledger)', async () => {
    const ledger = join(dir, 'ledger.sqlite');
    writeFileSync(ledger, 'SQLite format 3\u0000 the operator’s data');
    await expect(writeHistoryExport(ledger, 'json', none())).rejects.toThrow(/refusing to overwrite/);
    expect(readFileSync(ledger, 'utf8')).toBe('SQLite format 3\u0000 the operator’s data');
  });

  it('writes a new file, 0600', async () => {
    const path = join(dir, 'out', 'history.json');
    expect(await writeHistoryExport(path, 'json', none())).toBe(0);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual([]);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });
});

import { createWriteStream, openSync } from 'node:fs';
import { once } from 'node:events';
import type { HistoryEntry } from '../../ledger';
import { createPrivateFileExclusively } from '../../ledger/private-files';

export type HistoryExportFormat = 'json' | 'csv';

const CSV_COLUMNS = [
  'id',
  'brokerage_id',
  'seq',
  'record',
  'at',
  'source',
  'kind',
  'summary',
  'detail',
  'outcome',
  'prev_hash',
  'hash',
] as const;

export function historyEntryJson(entry: HistoryEntry) {
  return {
    id: entry.id,
    brokerageId: entry.brokerageId,
    seq: entry.seq,
    record: entry.record,
    at: entry.at.toISOString(),
    source: entry.source,
    kind: entry.kind,
    summary: entry.summary,
    detail: JSON.parse(entry.detail) as unknown,
    outcome: entry.outcome,
    prevHash: entry.prevHash,
    hash: entry.hash,
  };
}

// Writes the entries to a new 0600 file (JSON array or CSV with a header), streamed; returns the count.
export async function writeHistoryExport(
  path: string,
  format: HistoryExportFormat,
  entries: AsyncIterable<HistoryEntry>,
): Promise<number> {
  // Created exclusively, like a backup: an existing file (the ledger, a backup, an older export) is
  // refused, never truncated.
  createPrivateFileExclusively(path);
  const fd = openSync(path, 'r+');
  const out = createWriteStream(path, { fd });
  const write = async (text: string) => {
    if (!out.write(text)) await once(out, 'drain');
  };
  let count = 0;
  if (format === 'csv') await write(`${CSV_COLUMNS.join(',')}\n`);
  else await write('[');
  for await (const entry of entries) {
    if (format === 'csv') {
      const row = [
        entry.id,
        entry.brokerageId,
        entry.seq,
        entry.record,
        entry.at.toISOString(),
        entry.source,
        entry.kind,
        entry.summary,
        entry.detail,
        entry.outcome,
        entry.prevHash,
        entry.hash,
      ];
      await write(`${row.map(csvCell).join(',')}\n`);
    } else {
      await write(`${count === 0 ? '\n' : ',\n'}  ${JSON.stringify(historyEntryJson(entry))}`);
    }
    count += 1;
  }
  if (format === 'json') await write(count === 0 ? ']\n' : '\n]\n');
  out.end();
  await once(out, 'finish');
  return count;
}

function csvCell(value: string | number): string {
  const text = String(value);
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

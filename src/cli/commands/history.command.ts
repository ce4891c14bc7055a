import { Command, CommandRunner, Option } from 'nest-commander';
import { Clock } from '../../common/clock';
import { HistoryRepository, LinkRepository, type HistoryEntry } from '../../ledger';
import { otherNamesOf, type NamedRecord } from '../../sync/history/history-record-names';
import { formatDate } from '../output/format';
import { CliOutput } from '../output/cli-output';
import {
  historyEntryJson,
  writeHistoryExport,
  type HistoryExportFormat,
} from '../output/history-export.writer';
import { renderTable } from '../output/table';

interface HistoryOptions {
  record?: string;
  export?: string;
  verify?: boolean;
  from?: Date;
  to?: Date;
  brokerage?: string;
  format?: HistoryExportFormat;
  json?: boolean;
}

const DAY_MS = 24 * 60 * 60 * 1000;

const byChainOrder = (a: HistoryEntry, b: HistoryEntry): number =>
  a.brokerageId.localeCompare(b.brokerageId) || a.seq - b.seq;

const describeName = (name: NamedRecord): string => `${name.record} (brokerage ${name.brokerageId})`;
const RECORD = /^(offer|request|deal):\S+$/;

// The decision history: one record's life (--record), an export for a date range (--export), or a
// check of the hash chains (--verify, exit 1 naming the first entry that was edited or removed).
@Command({
  name: 'history',
  description: 'decision history: a record’s life, an export, or a check of the chain',
})
export class HistoryCommand extends CommandRunner {
  constructor(
    private readonly history: HistoryRepository,
    private readonly links: LinkRepository,
    private readonly clock: Clock,
    private readonly output: CliOutput,
  ) {
    super();
  }

  async run(_params: string[], options: HistoryOptions = {}): Promise<void> {
    const modes = [options.record !== undefined, options.export !== undefined, options.verify === true];
    if (modes.filter(Boolean).length !== 1) {
      this.output.fail(
        'history: give one of --record <offer:ID|request:ID|deal:ID>, --export <path> or --verify',
      );
      return;
    }
    if (options.record !== undefined) return this.show(options.record, options);
    if (options.export !== undefined) return this.export(options.export, options);
    return this.verify(options);
  }

  private async show(record: string, options: HistoryOptions): Promise<void> {
    if (!RECORD.test(record)) {
      this.output.fail(`history: --record takes offer:<id>, request:<id> or deal:<id>, got "${record}"`);
      return;
    }
    // The same record under its other names (an offer's CRM deal, a listing deal's request): one
    // life, told in the order it was written.
    const alsoNamed = await otherNamesOf(this.links, record, options.brokerage);
    const lists = await Promise.all([
      this.history.list(record, options.brokerage),
      ...alsoNamed.map((other) => this.history.list(other.record, other.brokerageId)),
    ]);
    const entries = lists.flat().sort(byChainOrder).map(historyEntryJson);
    if (options.json) {
      this.output.json({ record, alsoNamed, entries });
      return;
    }
    if (alsoNamed.length > 0)
      this.output.print(`${record} is also ${alsoNamed.map(describeName).join(', ')}`);
    if (entries.length === 0) {
      this.output.print(`no history for ${record}`);
      return;
    }
    this.output.print(
      renderTable(
        ['AT', 'BROKERAGE', 'SOURCE', 'KIND', { header: 'WHAT', wrap: 80 }, 'OUTCOME'],
        entries.map((e) => [formatDate(e.at), e.brokerageId, e.source, e.kind, e.summary, e.outcome]),
      ),
    );
  }

  private async export(path: string, options: HistoryOptions): Promise<void> {
    const from = options.from ?? new Date(0);
    const to = options.to ?? new Date(this.clock.nowMs() + DAY_MS);
    // A range that ends before it starts is a slip of the operator's, not a request for nothing.
    if (to <= from) {
      this.output.fail(
        `history --export: --to (${to.toISOString()}, exclusive) is not after --from (${from.toISOString()}); nothing was written`,
      );
      return;
    }
    const format = options.format ?? (path.endsWith('.csv') ? 'csv' : 'json');
    let count: number;
    try {
      count = await writeHistoryExport(
        path,
        format,
        this.history.export({ from, to, brokerageId: options.brokerage }),
      );
    } catch (error) {
      this.output.fail(`history --export: ${(error as Error).message}`);
      return;
    }
    const range = `${from.toISOString()} to ${to.toISOString()}`;
    if (options.json)
      this.output.json({ path, format, entries: count, from, to, brokerage: options.brokerage ?? null });
    else
      this.output.print(
        `wrote ${count} history entry(ies) from ${range}${options.brokerage ? ` of ${options.brokerage}` : ''} to ${path} (${format}, mode 0600)`,
      );
  }

  private async verify(options: HistoryOptions): Promise<void> {
    const result = await this.history.verify(options.brokerage);
    if (options.json) this.output.json(result);
    if (result.broken) {
      const b = result.broken;
      const which = b.id === null ? `entry ${b.seq}` : `entry ${b.id} (seq ${b.seq}, ${b.record})`;
      this.output.fail(`history of ${b.brokerageId} is broken at ${which}: ${b.reason}`);
      return;
    }
    if (!options.json)
      this.output.print(
        `history verified: ${result.checked} entry(ies) in ${result.brokerages} chain(s), intact`,
      );
  }

  @Option({
    flags: '--record <ref>',
    description: 'one record’s history: offer:<id>, request:<id> or deal:<id>',
  })
  parseRecord(value: string): string {
    return value;
  }

  @Option({ flags: '--export <path>', description: 'write the entries of a date range to a new 0600 file' })
  parseExport(value: string): string {
    return value;
  }

  @Option({
    flags: '--verify',
    description: 'check every chain; exit 1 naming the first edited or removed entry',
  })
  parseVerify(): boolean {
    return true;
  }

  @Option({
    flags: '--from <date>',
    description: 'export from this date (YYYY-MM-DD or ISO time, inclusive)',
  })
  parseFrom(value: string): Date {
    return parseDate('--from', value, false);
  }

  @Option({ flags: '--to <date>', description: 'export up to this date (a day is included whole)' })
  parseTo(value: string): Date {
    return parseDate('--to', value, true);
  }

  @Option({
    flags: '--format <format>',
    description: 'export format: json or csv (default from the file name)',
  })
  parseFormat(value: string): HistoryExportFormat {
    if (value !== 'json' && value !== 'csv') throw new Error(`--format must be json or csv, got "${value}"`);
    return value;
  }

  @Option({ flags: '-b, --brokerage <id>', description: 'only this brokerage' })
  parseBrokerage(value: string): string {
    return value;
  }

  @Option({ flags: '--json', description: 'machine-readable output' })
  parseJson(): boolean {
    return true;
  }
}

// A date alone is a whole day (UTC): --to 2026-03-31 includes the 31st.
function parseDate(flag: string, value: string, endOfDay: boolean): Date {
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(value);
  const date = new Date(dateOnly ? `${value}T00:00:00.000Z` : value);
  if (Number.isNaN(date.getTime()))
    throw new Error(`${flag} must be a date such as 2026-03-31, got "${value}"`);
  return dateOnly && endOfDay ? new Date(date.getTime() + DAY_MS) : date;
}

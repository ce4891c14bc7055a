import { Command, CommandRunner, Option } from 'nest-commander';
import { RecordErrorRepository, type RecordError } from '../../ledger';
import { ConfigService } from '../../config/config.service';
import { CliOutput } from '../output/cli-output';
import { checkKnownBrokerage } from './known-brokerage';
import { formatDate } from '../output/format';
import { renderTable } from '../output/table';
import { parseLimit, type CommonOptions } from './cli-options';

function errorJson(error: RecordError) {
  return {
    id: error.id,
    brokerageId: error.brokerageId,
    recordKind: error.recordKind,
    recordRef: error.recordRef,
    field: error.field,
    message: error.message,
    code: error.code,
    occurrences: error.occurrences,
    firstSeenAt: error.firstSeenAt.toISOString(),
    lastSeenAt: error.lastSeenAt.toISOString(),
  };
}

// Open record-level errors, with the message the agent sees on the CRM record.
@Command({ name: 'errors', description: 'open record errors, with the message an agent sees' })
export class ErrorsCommand extends CommandRunner {
  constructor(
    private readonly recordErrors: RecordErrorRepository,
    private readonly config: ConfigService,
    private readonly output: CliOutput,
  ) {
    super();
  }

  async run(_params: string[], options: CommonOptions & { limit?: number } = {}): Promise<void> {
    const errors = (
      await this.recordErrors.listOpen({ brokerageId: options.brokerage, limit: options.limit ?? 50 })
    ).map(errorJson);
    if (!checkKnownBrokerage(this.config, this.output, options.brokerage, errors.length > 0)) return;
    if (options.json) {
      this.output.json({ errors });
      return;
    }
    if (errors.length === 0) {
      this.output.print('no open record errors');
      return;
    }
    this.output.print(
      renderTable(
        ['ID', 'BROKERAGE', 'RECORD', 'FIELD', { header: 'MESSAGE', wrap: 70 }, 'SEEN', 'LAST SEEN'],
        errors.map((e) => [
          e.id,
          e.brokerageId,
          `${e.recordKind} ${e.recordRef}`,
          e.field,
          e.message,
          e.occurrences,
          formatDate(e.lastSeenAt),
        ]),
      ),
    );
  }

  @Option({ flags: '-b, --brokerage <id>', description: 'only this brokerage' })
  parseBrokerage(value: string): string {
    return value;
  }

  @Option({ flags: '-n, --limit <n>', description: 'how many errors (default 50)' })
  parseLimit(value: string): number {
    return parseLimit(value);
  }

  @Option({ flags: '--json', description: 'machine-readable output' })
  parseJson(): boolean {
    return true;
  }
}

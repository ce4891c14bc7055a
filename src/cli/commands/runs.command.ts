import { Command, CommandRunner, Option } from 'nest-commander';
import { RunRepository, type Run, type RunCounts } from '../../ledger';
import type { JobName } from '../../scheduler/job.types';
import { ConfigService } from '../../config/config.service';
import { CliOutput } from '../output/cli-output';
import { checkKnownBrokerage } from './known-brokerage';
import { RUN_COLUMNS, runCells } from '../output/run-columns';
import { renderTable } from '../output/table';
import { parseJob, parseLimit, type CommonOptions } from './cli-options';

export interface RunJson {
  id: number;
  brokerageId: string;
  job: string;
  status: string;
  startedAt: string;
  finishedAt: string | null;
  durationMs: number | null;
  counts: RunCounts;
  error: string | null;
}

export function runJson(run: Run): RunJson {
  return {
    id: run.id,
    brokerageId: run.brokerageId,
    job: run.job,
    status: run.status,
    startedAt: run.startedAt.toISOString(),
    finishedAt: run.finishedAt?.toISOString() ?? null,
    durationMs: run.finishedAt ? run.finishedAt.getTime() - run.startedAt.getTime() : null,
    counts: {
      read: run.readCount,
      created: run.createdCount,
      updated: run.updatedCount,
      unchanged: run.unchangedCount,
      failed: run.failedCount,
    },
    error: run.error,
  };
}

// Recent runs, newest first.
@Command({ name: 'runs', description: 'recent job runs, newest first' })
export class RunsCommand extends CommandRunner {
  constructor(
    private readonly runs: RunRepository,
    private readonly config: ConfigService,
    private readonly output: CliOutput,
  ) {
    super();
  }

  async run(
    _params: string[],
    options: CommonOptions & { job?: JobName; limit?: number; failed?: boolean; changed?: boolean } = {},
  ): Promise<void> {
    const runs = (
      await this.runs.list({
        brokerageId: options.brokerage,
        job: options.job,
        limit: options.limit ?? 20,
        failed: options.failed,
        changed: options.changed,
      })
    ).map(runJson);
    if (!checkKnownBrokerage(this.config, this.output, options.brokerage, runs.length > 0)) return;
    if (options.json) {
      this.output.json({ runs });
      return;
    }
    if (runs.length === 0) {
      this.output.print(options.failed || options.changed ? 'no such runs' : 'no runs recorded yet');
      return;
    }
    this.output.print(
      renderTable(
        ['ID', 'BROKERAGE', 'JOB', 'STATUS', ...RUN_COLUMNS, { header: 'ERROR', wrap: 60 }],
        runs.map((r) => [r.id, r.brokerageId, r.job, r.status, ...runCells(r), r.error]),
      ),
    );
  }

  @Option({ flags: '-b, --brokerage <id>', description: 'only this brokerage' })
  parseBrokerage(value: string): string {
    return value;
  }

  @Option({ flags: '-j, --job <job>', description: 'only this job' })
  parseJob(value: string): JobName {
    return parseJob(value);
  }

  @Option({ flags: '--failed', description: 'only failed or interrupted runs' })
  parseFailed(): boolean {
    return true;
  }

  @Option({ flags: '--changed', description: 'only runs that created, updated or failed a record' })
  parseChanged(): boolean {
    return true;
  }

  @Option({ flags: '-n, --limit <n>', description: 'how many runs (default 20)' })
  parseLimit(value: string): number {
    return parseLimit(value);
  }

  @Option({ flags: '--json', description: 'machine-readable output' })
  parseJson(): boolean {
    return true;
  }
}

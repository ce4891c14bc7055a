import { Injectable } from '@nestjs/common';
import type { BrokerageCrm } from '../../brokerages/brokerage-crm';
import { BrokerageCrms } from '../../brokerages/brokerage-crms';
import type { CrmChangePage, CrmCursor, CrmKind } from '../../crm';
import { CursorRepository } from '../../ledger';
import { emptyCounts, type JobContext, type JobCounts } from '../../scheduler/job.types';
import { errorMessage } from '../common/job-counts';
import type { NamedConsumer } from './crm-change.consumers';
import type { ChangeConsumer } from './crm-change-consumer.decorator';
import { advancedCursor, recordsFor, sharedReadOptions, type StreamPosition } from './shared-change-read';

// What one consumer did in a run: its counts, or why it stopped.
export interface ConsumerRun {
  name: string;
  counts: JobCounts;
  failure?: string;
}

interface Reader extends StreamPosition {
  consumer: ChangeConsumer;
  run: ConsumerRun;
  // Its cursor as moved in this run (the window it is given records from stays at `since`).
  committed: CrmCursor | null;
}

// The reading half of the crm-changes job: each record kind read once per run for all its
// consumers (a CRM read may be a rate-limited search), each page handed to every consumer of that
// kind in turn with only the records it wants, and each consumer's own cursor moved after its own
// work on the page (never on a dry run). A consumer that throws keeps its cursor and gets no more
// pages this run; the others go on.
@Injectable()
export class SharedChangeReads {
  constructor(
    private readonly crms: BrokerageCrms,
    private readonly cursors: CursorRepository,
  ) {}

  async run(ctx: JobContext, consumers: NamedConsumer[]): Promise<ConsumerRun[]> {
    const runs = consumers.map(({ name }): ConsumerRun => ({ name, counts: emptyCounts() }));
    let crm: BrokerageCrm;
    try {
      crm = await this.crms.get(ctx.brokerage.id);
    } catch (error) {
      for (const run of runs) run.failure = errorMessage(error);
      return runs;
    }
    const readers = await this.readers(crm, consumers, runs);
    for (const kind of [...new Set(readers.map((r) => r.stream.kind))]) {
      if (ctx.signal.aborted) break;
      await this.readKind(
        crm,
        ctx,
        kind,
        readers.filter((r) => r.stream.kind === kind),
      );
    }
    return runs;
  }

  // Each consumer's stream and stored cursor; one that cannot say what it reads fails alone.
  private async readers(
    crm: BrokerageCrm,
    consumers: NamedConsumer[],
    runs: ConsumerRun[],
  ): Promise<Reader[]> {
    const readers: Reader[] = [];
    for (const [i, { consumer }] of consumers.entries()) {
      try {
        const stream = consumer.stream(crm);
        const saved = await this.cursors.get(crm.brokerageId, stream.stream);
        const since = saved ? (JSON.parse(saved) as CrmCursor) : null;
        readers.push({ consumer, run: runs[i], stream, since, committed: since });
      } catch (error) {
        runs[i].failure = errorMessage(error);
      }
    }
    return readers;
  }

  private async readKind(
    crm: BrokerageCrm,
    ctx: JobContext,
    kind: CrmKind,
    readers: Reader[],
  ): Promise<void> {
    const overlapMs = crm.port.changeOverlapMs;
    try {
      for await (const page of crm.port.readChanges(sharedReadOptions(kind, readers))) {
        if (ctx.signal.aborted) return;
        for (const reader of readers)
          if (reader.run.failure === undefined) await this.consume(crm, ctx, reader, page, overlapMs);
        if (readers.every((r) => r.run.failure !== undefined)) return;
      }
    } catch (error) {
      // The read itself failed: every consumer of this kind still reading stops where it is.
      for (const reader of readers) reader.run.failure ??= errorMessage(error);
    }
  }

  private async consume(
    crm: BrokerageCrm,
    ctx: JobContext,
    reader: Reader,
    page: CrmChangePage,
    overlapMs: number,
  ): Promise<void> {
    try {
      const records = recordsFor(page.records, reader, overlapMs);
      if (records.length > 0)
        await reader.consumer.consumePage({ records, crm, ctx, counts: reader.run.counts });
      const next = advancedCursor(reader.committed, page.cursor);
      if (next === null || ctx.dryRun) return;
      await this.cursors.commitPage(crm.brokerageId, reader.stream.stream, JSON.stringify(next));
      reader.committed = next;
    } catch (error) {
      reader.run.failure = errorMessage(error);
    }
  }
}

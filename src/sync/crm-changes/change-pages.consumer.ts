import { Inject } from '@nestjs/common';
import type { BrokerageCrm } from '../../brokerages/brokerage-crm';
import { BrokerageCrms } from '../../brokerages/brokerage-crms';
import type { CrmRecord } from '../../crm';
import { CursorRepository } from '../../ledger';
import { emptyCounts, type JobContext, type JobCounts } from '../../scheduler/job.types';
import { readChangePages, type ChangeStream } from '../common/deal-changes.reader';
import type { ChangeConsumer } from './crm-change-consumer.decorator';

export interface ConsumedPage {
  records: CrmRecord[];
  crm: BrokerageCrm;
  ctx: JobContext;
  counts: JobCounts;
}

// The loop every CRM change consumer shares: the brokerage's CRM, its own cursor stream read page by
// page, each page's work, then the page committed (the cursor moves only after the work is done, and
// never on a dry run). A subclass says what it reads and what it does with one page.
export abstract class ChangePagesConsumer implements ChangeConsumer {
  // Injected as properties, so a consumer's constructor lists only what its own work needs.
  @Inject(BrokerageCrms) private readonly crms!: BrokerageCrms;
  @Inject(CursorRepository) private readonly cursors!: CursorRepository;

  protected abstract stream(crm: BrokerageCrm): ChangeStream;

  // Adds to `page.counts` what it read and did; a thrown error leaves the page's cursor where it was.
  protected abstract consumePage(page: ConsumedPage): Promise<void>;

  async run(ctx: JobContext): Promise<JobCounts> {
    const counts = emptyCounts();
    const crm = await this.crms.get(ctx.brokerage.id);
    for await (const page of readChangePages(crm, this.cursors, this.stream(crm), ctx)) {
      await this.consumePage({ records: page.records, crm, ctx, counts });
      await page.commit();
    }
    return counts;
  }
}

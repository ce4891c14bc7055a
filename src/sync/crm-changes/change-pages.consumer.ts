import type { BrokerageCrm } from '../../brokerages/brokerage-crm';
import type { CrmRecord } from '../../crm';
import type { JobContext, JobCounts } from '../../scheduler/job.types';
import type { ChangeStream } from './change-stream';
import type { ChangeConsumer } from './crm-change-consumer.decorator';

export interface ConsumedPage {
  records: CrmRecord[];
  crm: BrokerageCrm;
  ctx: JobContext;
  counts: JobCounts;
}

// The base of every CRM change consumer: what it reads, and what it does with one page. The
// crm-changes job does the reading (SharedChangeReads: one read per record kind for all its
// consumers) and moves each consumer's own cursor after its page's work (never on a dry run).
export abstract class ChangePagesConsumer implements ChangeConsumer {
  abstract stream(crm: BrokerageCrm): ChangeStream;

  // Adds to `page.counts` what it read and did; a thrown error leaves the consumer's cursor where it
  // was, and it gets no more pages in this run.
  abstract consumePage(page: ConsumedPage): Promise<void>;
}

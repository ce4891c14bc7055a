import { Injectable, Logger } from '@nestjs/common';
import { Clock } from '../../common/clock';
import type { CrmRecord, CrmUpdateInput } from '../../crm/crm.types';
import { OutboxRepository, outboxKey, RecordErrorRepository } from '../../ledger';
import type { JobContext, JobCounts } from '../../scheduler/job.types';
import type { ChangeStream } from '../crm-changes/change-stream';
import { ChangePagesConsumer, type ConsumedPage } from '../crm-changes/change-pages.consumer';
import { CrmChangeConsumer } from '../crm-changes/crm-change-consumer.decorator';
import { toPushRequest } from './push-request.mapper';
import { pushWriteBack } from './push.executor';
import type { PushPayload } from './push.executor';
import { PUSH_FLAG, PUSH_PROPERTIES, PUSH_RESULT, PUSH_STREAM, PUSH_TO_MARKETPLACE } from './push.constants';

// Listing deals flagged "push to marketplace": one outbox command per (deal, expiration date), so a
// deal read again is not pushed again, while a new expiration date is a new push.
@Injectable()
@CrmChangeConsumer('push-to-marketplace')
export class PushToMarketplaceConsumer extends ChangePagesConsumer {
  private readonly logger = new Logger(PushToMarketplaceConsumer.name);

  constructor(
    private readonly outbox: OutboxRepository,
    private readonly recordErrors: RecordErrorRepository,
    private readonly clock: Clock,
  ) {
    super();
  }

  stream(): ChangeStream {
    return {
      stream: PUSH_STREAM,
      kind: 'deal',
      properties: PUSH_PROPERTIES,
      filter: { propertyEquals: { [PUSH_FLAG]: 'true' } },
    };
  }

  async consumePage({ records, crm, ctx, counts }: ConsumedPage): Promise<void> {
    const messages: CrmUpdateInput[] = [];
    for (const deal of records) await this.deal(ctx, deal, counts, messages);
    if (messages.length > 0 && !ctx.dryRun)
      for (const result of await crm.port.updateRecords('deal', messages))
        if (!result.ok)
          this.logger.warn(`deal ${result.key}: could not write the push status: ${result.error.message}`);
  }

  private async deal(
    ctx: JobContext,
    deal: CrmRecord,
    counts: JobCounts,
    messages: CrmUpdateInput[],
  ): Promise<void> {
    const brokerageId = ctx.brokerage.id;
    counts.read++;
    const push = toPushRequest(deal, this.clock.now());
    if (!push.ok) {
      counts.failed++;
      const text = `Not pushed: ${push.problems.join('; ')}`;
      if (ctx.dryRun) return;
      await this.recordErrors.record({
        brokerageId,
        recordKind: 'deal',
        recordRef: deal.id,
        field: PUSH_RESULT,
        message: text,
        code: 'INVALID_RECORD',
      });
      if ((deal.properties[PUSH_RESULT] ?? '') !== text)
        messages.push({ id: deal.id, properties: { [PUSH_RESULT]: text } });
      return;
    }
    const recordRef = `deal:${deal.id}`;
    const idempotencyKey = outboxKey(
      brokerageId,
      recordRef,
      `${PUSH_TO_MARKETPLACE}@${push.expiration ?? 'no-expiration'}`,
    );
    const payload: PushPayload = { dealId: deal.id, body: push.body };
    const existing = await this.outbox.findByKey(idempotencyKey);
    if (existing === null && !ctx.dryRun)
      await this.outbox.enqueue({
        brokerageId,
        idempotencyKey,
        operation: PUSH_TO_MARKETPLACE,
        recordRef,
        payload,
      });
    if (existing === null) counts.created++;
    else counts.unchanged++;
    // Pushed and answered, yet still flagged: the write-back was lost (the daemon stopped in between).
    if (existing?.state === 'done' && !ctx.dryRun)
      messages.push({ id: deal.id, properties: pushWriteBack(existing, existing.result) });
  }
}

import { readChangePages } from '../common/deal-changes.reader';
import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { BrokerageClients } from '../../brokerages/brokerage-clients';
import { Clock } from '../../common/clock';
import type { CrmRecord, CrmUpdateInput } from '../../crm/crm.types';
import { CursorRepository, OutboxRepository, outboxKey, RecordErrorRepository } from '../../ledger';
import type { JobContext, JobCounts } from '../../scheduler/job.types';
import { emptyCounts } from '../../scheduler/job.types';
import { CrmChangeConsumers } from '../crm-changes/crm-change.consumers';
import type { CrmChangeConsumer } from '../crm-changes/crm-change.consumers';
import { toPushRequest } from './push-request.mapper';
import { pushWriteBack } from './push.executor';
import type { PushPayload } from './push.executor';
import { PUSH_FLAG, PUSH_PROPERTIES, PUSH_RESULT, PUSH_STREAM, PUSH_TO_MARKETPLACE } from './push.constants';

// Listing deals flagged "push to marketplace": one outbox command per (deal, expiration date), so a
// deal read again is not pushed again, while a new expiration date is a new push.
@Injectable()
export class PushToMarketplaceConsumer implements CrmChangeConsumer, OnModuleInit {
  readonly name = 'push-to-marketplace';
  private readonly logger = new Logger(PushToMarketplaceConsumer.name);

  constructor(
    private readonly consumers: CrmChangeConsumers,
    private readonly clients: BrokerageClients,
    private readonly cursors: CursorRepository,
    private readonly outbox: OutboxRepository,
    private readonly recordErrors: RecordErrorRepository,
    private readonly clock: Clock,
  ) {}

  onModuleInit(): void {
    this.consumers.register(this);
  }

  async run(ctx: JobContext): Promise<JobCounts> {
    const brokerageId = ctx.brokerage.id;
    const crm = await this.clients.crm(brokerageId);
    const counts = emptyCounts();
    const stream = {
      stream: PUSH_STREAM,
      kind: 'deal' as const,
      properties: PUSH_PROPERTIES,
      filter: { propertyEquals: { [PUSH_FLAG]: 'true' } },
    };
    for await (const page of readChangePages(crm, this.cursors, stream, ctx)) {
      const messages: CrmUpdateInput[] = [];
      for (const deal of page.records) await this.deal(ctx, deal, counts, messages);
      if (messages.length > 0 && !ctx.dryRun)
        for (const result of await crm.port.updateRecords('deal', messages))
          if (!result.ok)
            this.logger.warn(`deal ${result.key}: could not write the push status: ${result.error.message}`);
      await page.commit();
    }
    return counts;
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

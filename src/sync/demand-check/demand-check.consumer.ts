import { Injectable, Logger } from '@nestjs/common';
import { CashOfferClients } from '../../brokerages/cash-offer-clients';
import type { BrokerageCrm } from '../../brokerages/brokerage-crm';
import { readPrelimCounts } from '../../cash-offer';
import { RemoteError } from '../../common/remote-error';
import type { CrmProperties, CrmRecord } from '../../crm/crm.types';
import { RecordErrorRepository } from '../../ledger';
import type { JobContext, JobCounts } from '../../scheduler/job.types';
import type { ChangeStream } from '../crm-changes/change-stream';
import { ChangePagesConsumer, type ConsumedPage } from '../crm-changes/change-pages.consumer';
import { CrmChangeConsumer } from '../crm-changes/crm-change-consumer.decorator';
import {
  BUY_BOX_COUNT,
  BUYER_COUNT,
  DEMAND_CHECK_STREAM,
  DEMAND_FLAG,
  SYNC_ERROR,
} from './demand-check.constants';
import { prelimDealProperties, toPrelimInventory } from './prelim-inventory.mapper';

const PREFIX = 'Demand check: ';

// Deals flagged "check buyer demand": POST /offer-requests/prelim (creates nothing on the service,
// so it is called directly, not through the outbox) and the counts on the deal; the flag goes down.
@Injectable()
@CrmChangeConsumer('demand-check')
export class DemandCheckConsumer extends ChangePagesConsumer {
  private readonly logger = new Logger(DemandCheckConsumer.name);

  constructor(
    private readonly cashOffers: CashOfferClients,
    private readonly recordErrors: RecordErrorRepository,
  ) {
    super();
  }

  stream(crm: BrokerageCrm): ChangeStream {
    return {
      stream: DEMAND_CHECK_STREAM,
      kind: 'deal',
      properties: [DEMAND_FLAG, SYNC_ERROR, ...prelimDealProperties(crm.mapping)],
      filter: { propertyEquals: { [DEMAND_FLAG]: 'true' } },
    };
  }

  async consumePage({ records, crm, ctx, counts }: ConsumedPage): Promise<void> {
    for (const deal of records) await this.check(ctx, crm, deal, counts);
  }

  private async check(ctx: JobContext, crm: BrokerageCrm, deal: CrmRecord, counts: JobCounts): Promise<void> {
    counts.read++;
    const prelim = toPrelimInventory(deal, crm.mapping);
    if (!prelim.ok) return this.problem(ctx, crm, deal, prelim.problems.join('; '), 'INVALID_RECORD', counts);
    if (ctx.dryRun) {
      counts.updated++;
      return;
    }
    let answer;
    try {
      answer = readPrelimCounts(await this.cashOffers.get(ctx.brokerage.id).prelim(prelim.body));
    } catch (error) {
      // Refusals are the record's; an unavailable service fails the consumer, the cursor stays.
      if (!(error instanceof RemoteError) || error.retryable) throw error;
      return this.problem(ctx, crm, deal, error.message, error.code, counts);
    }
    const properties: CrmProperties = {
      // A count the answer does not carry is left empty, never shown as 0.
      [BUYER_COUNT]: answer.buyers === undefined ? null : String(answer.buyers),
      [BUY_BOX_COUNT]: answer.buyBoxes === undefined ? null : String(answer.buyBoxes),
      [DEMAND_FLAG]: 'false',
    };
    if (deal.properties[SYNC_ERROR]?.startsWith(PREFIX)) properties[SYNC_ERROR] = null;
    await this.write(crm, deal.id, properties);
    await this.recordErrors.resolve(ctx.brokerage.id, 'deal', deal.id);
    counts.updated++;
  }

  private async problem(
    ctx: JobContext,
    crm: BrokerageCrm,
    deal: CrmRecord,
    message: string,
    code: string,
    counts: JobCounts,
  ): Promise<void> {
    counts.failed++;
    if (ctx.dryRun) return;
    const text = `${PREFIX}${message}`;
    await this.recordErrors.record({
      brokerageId: ctx.brokerage.id,
      recordKind: 'deal',
      recordRef: deal.id,
      field: DEMAND_FLAG,
      message: text,
      code,
    });
    // The flag goes down too: a deal that cannot be checked is not retried until the agent asks again.
    await this.write(crm, deal.id, { [SYNC_ERROR]: text, [DEMAND_FLAG]: 'false' });
  }

  private async write(crm: BrokerageCrm, id: string, properties: CrmProperties): Promise<void> {
    const [result] = await crm.port.updateRecords('deal', [{ id, properties }]);
    if (result && !result.ok)
      this.logger.warn(`deal ${id}: could not write the demand check: ${result.error.message}`);
  }
}

import { Injectable, Logger } from '@nestjs/common';
import type { BrokerageCrm } from '../../brokerages/brokerage-crm';
import { listingTriggerProperty } from '../../brokerages/listing-trigger';
import { mappedProperties } from '../../crm/mapping/crm-field-mapping';
import type { CrmRecord } from '../../crm';
import { LinkRepository, OutboxRepository, outboxKey, type OutboxCommand } from '../../ledger';
import { contentHash } from '../common/content-hash';
import { commandGenerations, currentGeneration } from '../common/command-generations';
import { fetchSellerContacts, sellerContactId } from '../common/seller-contacts';
import type { ChangeStream } from '../crm-changes/change-stream';
import { isTrue } from '../common/crm-values';
import { DEAL, LINK } from '../common/listing-deal.properties';
import { RecordIssues } from '../common/record-issues';
import { ChangePagesConsumer, type ConsumedPage } from '../crm-changes/change-pages.consumer';
import { CrmChangeConsumer } from '../crm-changes/crm-change-consumer.decorator';
import { CREATE_OFFER_REQUEST } from './create-offer-request.executor';
import { mapDealToOfferRequest } from './offer-request.mapper';

export const SELLER_REQUESTS_STREAM = 'crm:deal:seller-requests';

// Flow 1: a listing deal in the trigger stage (or with its trigger property set) becomes one offer
// request, validated first and sent through the outbox under the deal's idempotency key.
@Injectable()
@CrmChangeConsumer('seller-requests')
export class SellerRequestsConsumer extends ChangePagesConsumer {
  private readonly logger = new Logger(SellerRequestsConsumer.name);

  constructor(
    private readonly links: LinkRepository,
    private readonly outbox: OutboxRepository,
    private readonly issues: RecordIssues,
  ) {
    super();
  }

  stream(crm: BrokerageCrm): ChangeStream {
    const { triggerStageId } = crm.listings;
    const trigger = triggerOf(crm);
    return {
      stream: SELLER_REQUESTS_STREAM,
      kind: 'deal',
      // A configured trigger property is read too: the CRM answers only the properties asked for.
      properties: [
        ...new Set([
          ...mappedProperties(crm.mapping, 'deal'),
          ...Object.values(DEAL),
          ...(trigger ? [trigger] : []),
        ]),
      ],
      filter: {
        pipelineId: crm.listings.pipelineId,
        ...(triggerStageId && !trigger ? { stageIds: [triggerStageId] } : {}),
      },
      withAssociations: ['contact'],
    };
  }

  async consumePage({ records, crm, ctx, counts }: ConsumedPage): Promise<void> {
    const { triggerStageId } = crm.listings;
    const trigger = triggerOf(crm);
    const wanted = records.filter(
      (deal) =>
        (deal.stageId === triggerStageId && triggerStageId !== undefined) ||
        (trigger !== undefined && isTrue(deal.properties, trigger)),
    );
    const contacts = await fetchSellerContacts(crm, wanted);
    for (const deal of wanted) {
      counts.read += 1;
      const outcome = await this.handle(crm, deal, contacts, ctx.dryRun);
      counts[outcome] += 1;
    }
  }

  private async handle(
    crm: BrokerageCrm,
    deal: CrmRecord,
    contacts: Map<string, CrmRecord>,
    dryRun: boolean,
  ): Promise<'created' | 'unchanged' | 'failed'> {
    if (deal.properties[DEAL.requestId]) return 'unchanged';
    if (await this.links.findByCrmId(crm.brokerageId, LINK.offerRequest, deal.id)) return 'unchanged';
    const sellerContact = contacts.get(sellerContactId(deal) ?? '');
    const { body, violations } = mapDealToOfferRequest({
      deal,
      sellerContact,
      mapping: crm.mapping,
      testMode: crm.testMode,
    });
    if (violations.length > 0) {
      if (!dryRun) {
        await this.issues.report(
          crm,
          deal,
          DEAL.syncError,
          violations.map((v) => ({ field: v.field, message: v.message, code: 'INVALID_RECORD' })),
        );
      }
      return 'failed';
    }
    const existing = await this.current(crm.brokerageId, deal.id);
    if (existing.command) return 'unchanged';
    // The service refused exactly this body before: wait for the agent to change the deal.
    if (existing.refused && contentHash(existing.refused.payload) === contentHash(body)) return 'failed';
    if (dryRun) return 'created';
    await this.outbox.enqueue({
      brokerageId: crm.brokerageId,
      idempotencyKey: existing.key,
      operation: CREATE_OFFER_REQUEST,
      recordRef: `deal:${deal.id}`,
      payload: body,
    });
    this.logger.log(`deal ${deal.id}: offer request queued`);
    return 'created';
  }

  // The live create command of a deal, or the key for a new one. A command the service refused
  // (dead) is superseded by the next generation once the agent has fixed the deal.
  private async current(
    brokerageId: string,
    dealId: string,
  ): Promise<{ key: string; command?: OutboxCommand; refused?: OutboxCommand }> {
    const chain = await commandGenerations((generation) =>
      this.outbox.findByKey(createKey(brokerageId, dealId, generation)),
    );
    const { generation, ...current } = currentGeneration(chain);
    return { key: createKey(brokerageId, dealId, generation), ...current };
  }
}

function triggerOf(crm: BrokerageCrm): string | undefined {
  return listingTriggerProperty(crm.listings);
}

export function createKey(brokerageId: string, dealId: string, generation: number): string {
  const operation = generation === 1 ? CREATE_OFFER_REQUEST : `${CREATE_OFFER_REQUEST}#${generation}`;
  return outboxKey(brokerageId, `deal:${dealId}`, operation);
}

import { Injectable } from '@nestjs/common';
import type { BrokerageCrm } from '../../brokerages/brokerage-crm';
import { mappedProperties } from '../../crm/mapping/crm-field-mapping';
import {
  AddMediaBody,
  UpdateOfferRequestBody,
  validateWire,
  type CreateOfferRequestBody,
} from '../../cash-offer/schema';
import type { CrmRecord } from '../../crm';
import { LinkRepository, OutboxRepository, outboxKey, type OutboxCommand } from '../../ledger';
import { contentHash } from '../common/content-hash';
import { commandGenerations } from '../common/command-generations';
import { fetchSellerContacts, sellerContactId } from '../common/seller-contacts';
import type { ChangeStream } from '../crm-changes/change-stream';
import { DEAL, LINK } from '../common/listing-deal.properties';
import { RecordIssues } from '../common/record-issues';
import { ChangePagesConsumer, type ConsumedPage } from '../crm-changes/change-pages.consumer';
import { CrmChangeConsumer } from '../crm-changes/crm-change-consumer.decorator';
import { mapDealToOfferRequest } from '../seller-requests/offer-request.mapper';
import { createKey } from '../seller-requests/seller-requests.consumer';
import { ADD_OFFER_REQUEST_MEDIA, type AddMediaPayload } from '../seller-requests/add-media.executor';
import { planRequestUpdate } from './request-update.mapper';
import { UPDATE_OFFER_REQUEST, type UpdateOfferRequestPayload } from './update-offer-request.executor';
import { updateGenerations, updateKey, updateWanted, type UpdateGenerations } from './update-generations';

function mediaKey(brokerageId: string, dealId: string, url: string): string {
  return outboxKey(brokerageId, `deal:${dealId}`, `${ADD_OFFER_REQUEST_MEDIA}:${contentHash(url)}`);
}

export const REQUEST_UPDATES_STREAM = 'crm:deal:request-updates';
type Outcome = 'updated' | 'unchanged' | 'failed';

// Flow 2: later edits of a submitted listing deal. Listing-agent fields go out with
// PATCH /offer-requests/{id}; edits the service does not accept after submission are shown on the deal.
@Injectable()
@CrmChangeConsumer('request-updates')
export class RequestUpdatesConsumer extends ChangePagesConsumer {
  constructor(
    private readonly links: LinkRepository,
    private readonly outbox: OutboxRepository,
    private readonly issues: RecordIssues,
  ) {
    super();
  }

  stream(crm: BrokerageCrm): ChangeStream {
    return {
      stream: REQUEST_UPDATES_STREAM,
      kind: 'deal',
      properties: [...mappedProperties(crm.mapping, 'deal'), ...Object.values(DEAL)],
      filter: { pipelineId: crm.listings.pipelineId, propertyHasValue: [DEAL.requestId] },
      withAssociations: ['contact'],
    };
  }

  async consumePage({ records, crm, ctx, counts }: ConsumedPage): Promise<void> {
    const contacts = await fetchSellerContacts(crm, records);
    for (const deal of records) {
      const outcome = await this.handle(crm, deal, contacts.get(sellerContactId(deal) ?? ''), ctx.dryRun);
      if (outcome === undefined) continue;
      counts.read += 1;
      counts[outcome] += 1;
    }
  }

  private async handle(
    crm: BrokerageCrm,
    deal: CrmRecord,
    sellerContact: CrmRecord | undefined,
    dryRun: boolean,
  ): Promise<Outcome | undefined> {
    const requestId = Number(deal.properties[DEAL.requestId]);
    const link = await this.links.find(crm.brokerageId, LINK.offerRequest, String(requestId));
    const sent = await this.submitted(crm.brokerageId, deal.id);
    // Not submitted by this daemon, or its write-back is still under way.
    if (!link || link.crmId !== deal.id || !sent) return undefined;
    const current = mapDealToOfferRequest({ deal, sellerContact, mapping: crm.mapping }).body;
    const plan = planRequestUpdate(sent.payload as CreateOfferRequestBody, current);
    const violations = [
      ...validateWire(UpdateOfferRequestBody, plan.update),
      ...(plan.newMedia.length > 0
        ? validateWire(AddMediaBody, { offer_request_id: requestId, media: plan.newMedia })
        : []),
    ];
    const issues = [...plan.notUpdatable, ...violations].map((v) => ({
      field: v.field,
      message: v.message,
      code: 'INVALID_RECORD',
    }));
    const hash = contentHash(plan.update.property);
    const updates = await this.updates(crm.brokerageId, deal.id);
    const send = violations.length === 0 && updateWanted(updates, hash, link.contentHash);
    const media =
      violations.length === 0 ? await this.unsentMedia(crm.brokerageId, deal.id, plan.newMedia) : [];
    if (dryRun) return issues.length > 0 ? 'failed' : send || media.length > 0 ? 'updated' : 'unchanged';
    if (issues.length > 0) await this.issues.report(crm, deal, DEAL.syncError, issues);
    else await this.issues.clear(crm, deal, DEAL.syncError);
    if (send) {
      const generation = updates.generations + 1;
      const payload: UpdateOfferRequestPayload = {
        requestId,
        dealId: deal.id,
        body: plan.update,
        hash,
        submitted: sent.payload as CreateOfferRequestBody,
        generation,
      };
      await this.outbox.enqueue({
        brokerageId: crm.brokerageId,
        idempotencyKey: updateKey(crm.brokerageId, deal.id, generation),
        operation: UPDATE_OFFER_REQUEST,
        recordRef: `deal:${deal.id}`,
        payload,
      });
    }
    for (const url of media) {
      const payload: AddMediaPayload = { requestId, dealId: deal.id, urls: [url] };
      await this.outbox.enqueue({
        brokerageId: crm.brokerageId,
        idempotencyKey: mediaKey(crm.brokerageId, deal.id, url),
        operation: ADD_OFFER_REQUEST_MEDIA,
        recordRef: `deal:${deal.id}`,
        payload,
      });
    }
    if (send || media.length > 0) return 'updated';
    return issues.length > 0 ? 'failed' : 'unchanged';
  }

  private async unsentMedia(brokerageId: string, dealId: string, urls: string[]): Promise<string[]> {
    const unsent: string[] = [];
    for (const url of urls)
      if (!(await this.outbox.findByKey(mediaKey(brokerageId, dealId, url)))) unsent.push(url);
    return unsent;
  }

  // The deal's listing-agent updates so far (updateKey), in order.
  private async updates(brokerageId: string, dealId: string): Promise<UpdateGenerations> {
    return updateGenerations((generation) =>
      this.outbox.findByKey(updateKey(brokerageId, dealId, generation)),
    );
  }

  // The create command that reached the service: its body is what the service holds.
  private async submitted(brokerageId: string, dealId: string): Promise<OutboxCommand | undefined> {
    const creates = await commandGenerations((generation) =>
      this.outbox.findByKey(createKey(brokerageId, dealId, generation)),
    );
    return creates.find((command) => command.state === 'done');
  }
}

import { Injectable, OnModuleInit } from '@nestjs/common';
import { CashOfferError } from '../../cash-offer';
import { PRELIM_INVENTORY_FIELDS, type CreateOfferRequestBody } from '../../cash-offer/schema';
import { Clock } from '../../common/clock';
import { LinkRepository, type OutboxCommand } from '../../ledger';
import { contentHash } from '../common/content-hash';
import { DEAL, LINK } from '../common/listing-deal.properties';
import { RecordIssues } from '../common/record-issues';
import {
  OutboxContext,
  OutboxExecutor,
  OutboxExecutors,
  OutboxReconciliation,
} from '../outbox/outbox.executors';
import { splitRecordRef } from '../outbox/outbox-retry.policy';
import { updatableHash } from '../request-updates/updatable-fields';
import {
  findOfferRequestByExternalId,
  indexByExternalId,
  type ExternalIdIndex,
} from './offer-request.finder';
import { SellerRequestResult, toSellerRequestResult } from './seller-request.result';

export const CREATE_OFFER_REQUEST = 'create_offer_request';

// POST /offer-requests for one listing deal, then the request id, status and prelim counts on the deal.
@Injectable()
export class CreateOfferRequestExecutor implements OutboxExecutor, OnModuleInit {
  readonly operation = CREATE_OFFER_REQUEST;
  private readonly indexes = new WeakMap<AbortSignal, Promise<ExternalIdIndex>>();

  constructor(
    private readonly executors: OutboxExecutors,
    private readonly links: LinkRepository,
    private readonly issues: RecordIssues,
    private readonly clock: Clock,
  ) {}

  onModuleInit(): void {
    this.executors.register(this);
  }

  async send(command: OutboxCommand, ctx: OutboxContext): Promise<SellerRequestResult> {
    const record = await ctx.cashOffer.createOfferRequest(command.payload as CreateOfferRequestBody);
    return toSellerRequestResult(record);
  }

  async writeBack(command: OutboxCommand, result: unknown, ctx: OutboxContext): Promise<void> {
    const dealId = splitRecordRef(command.recordRef).id;
    const body = command.payload as CreateOfferRequestBody;
    let created = (result ?? {}) as SellerRequestResult;
    if (created.offer_request_id === undefined) {
      // The service may answer without the id (the spec's declared response omits it).
      const found = await findOfferRequestByExternalId(
        ctx.brokerage.id,
        dealId,
        ctx.cashOffer,
        this.links,
        ctx.signal,
      );
      if (!found)
        throw new Error(`deal ${dealId}: the offer request was created but its id is not known yet`);
      created = { ...created, ...found };
    }
    const requestId = String(created.offer_request_id);
    const status = created.offer_request_status;
    await this.links.upsertLinks(ctx.brokerage.id, LINK.offerRequest, [
      { remoteId: requestId, crmId: dealId, contentHash: updatableHash(body.property) },
    ]);
    const statusLink = await this.links.find(ctx.brokerage.id, LINK.requestStatus, requestId);
    const properties: Record<string, string | null> = {
      [DEAL.requestId]: requestId,
      [DEAL.syncError]: null,
      [DEAL.submittedAt]: created.offer_requested_at ?? this.clock.now().toISOString(),
    };
    if (created.inventory_property_id !== undefined)
      properties[DEAL.inventoryId] = String(created.inventory_property_id);
    if (status && !statusLink) properties[DEAL.status] = status;
    const prelim = await ctx.cashOffer.prelim({ inventory: pick(body.property, PRELIM_INVENTORY_FIELDS) });
    if (prelim) {
      properties[DEAL.prelimBuyers] = String(prelim.buyer_count);
      properties[DEAL.prelimBuyBoxes] = String(prelim.buy_box_count);
    }
    const [written] = await ctx.crm.port.updateRecords('deal', [{ id: dealId, properties }]);
    if (written && !written.ok) throw written.error;
    if (status && !statusLink) {
      await this.links.upsertLinks(ctx.brokerage.id, LINK.requestStatus, [
        { remoteId: requestId, crmId: dealId, contentHash: status },
      ]);
    }
  }

  async onRefused(command: OutboxCommand, error: CashOfferError, ctx: OutboxContext): Promise<void> {
    const dealId = splitRecordRef(command.recordRef).id;
    await this.issues.report(ctx.crm, { id: dealId, properties: {} }, DEAL.syncError, [
      {
        message: `The Cash Offer service refused the offer request: ${error.message}. Fix the deal and move it to the trigger stage again.`,
        code: error.code,
      },
    ]);
  }

  // Every unknown create of one drain run is looked up in one scan of the service's lists (the run's
  // abort signal identifies the run), so many unknowns never cost a full scan each.
  private scanOf(ctx: OutboxContext): Promise<ExternalIdIndex> {
    let index = this.indexes.get(ctx.signal);
    if (!index) {
      index = indexByExternalId(ctx.cashOffer, ctx.signal);
      this.indexes.set(ctx.signal, index);
    }
    return index;
  }

  async reconcile(command: OutboxCommand, ctx: OutboxContext): Promise<OutboxReconciliation> {
    const dealId = splitRecordRef(command.recordRef).id;
    const index = await this.scanOf(ctx);
    const found = await findOfferRequestByExternalId(
      ctx.brokerage.id,
      dealId,
      ctx.cashOffer,
      this.links,
      ctx.signal,
      index,
    );
    if (found) return { found: true, result: found };
    const hint =
      `Look for an offer request with offer_request_external_id "${dealId}" in the service account ` +
      `(it is listed once approved; offers on it name it too). If there is none, replay outbox command ` +
      `${command.id}; the daemon checks again on every drain (payload hash ${contentHash(command.payload)}).`;
    // The agent sees why nothing seems to happen; written once (the text does not change).
    const [deal] = await ctx.crm.port.getRecords('deal', [dealId], [DEAL.syncError]);
    if (deal) {
      await this.issues.report(ctx.crm, deal, DEAL.syncError, [
        {
          message:
            'The offer request was sent but the answer was lost; it is not sent again while the daemon looks for it ' +
            '(it shows up once the service approves the request). ' +
            hint,
          code: 'OUTCOME_UNKNOWN',
        },
      ]);
    }
    return { found: false, provablyAbsent: false, hint };
  }
}

function pick(obj: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((k) => obj[k] !== undefined).map((k) => [k, obj[k]]));
}

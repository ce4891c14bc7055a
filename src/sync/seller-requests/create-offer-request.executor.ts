import { Injectable, Logger } from '@nestjs/common';
import { readPrelimCounts, type PrelimCounts } from '../../cash-offer';
import type { RemoteError } from '../../common/remote-error';
import { errorMessage } from '../common/job-counts';
import { PRELIM_INVENTORY_FIELDS, type CreateOfferRequestBody } from '../../cash-offer/schema';
import { Clock } from '../../common/clock';
import {
  InboxRepository,
  LinkRepository,
  OutboxRepository,
  requestOrderingKey,
  type OutboxCommand,
} from '../../ledger';
import { contentHash } from '../common/content-hash';
import { DEAL, LINK } from '../common/listing-deal.properties';
import { RecordIssues, type RecordIssue } from '../common/record-issues';
import { AwaitingEvidenceError } from '../outbox/awaiting-evidence.error';
import { OutboxExecutor } from '../outbox/outbox-executor.decorator';
import type { CommandExecutor, OutboxContext, OutboxReconciliation } from '../outbox/outbox.executors';
import { splitRecordRef } from '../outbox/outbox-retry.policy';
import { updatableHash } from '../common/updatable-fields';
import { DEFAULT_UNKNOWN_OUTCOME_WINDOW_MINUTES } from '../../config';
import { refusalAdvice } from './refusal-advice';
import { findOfferRequestByExternalId, OfferRequestLocator } from './offer-request.finder';
import { waitingOfferEchoes } from './offer-echoes';
import { photosSentOf, SellerRequestResult, toSellerRequestResult } from './seller-request.result';
import { createWithPhotos } from './create-with-photos';
import {
  nextPlacement,
  placeExternalId,
  saysExternalIdHeld,
  type ExternalIdPlacement,
} from './external-id-placement';
import { PhotoBatchesQueue } from './photo-batches.queue';
import { toCrmDateTime } from '../common/crm-values';
import { RequestStatusService } from '../request-status/request-status.service';

export const CREATE_OFFER_REQUEST = 'create_offer_request';

// POST /offer-requests for one listing deal, then the request id, status and prelim counts on the deal.
@Injectable()
@OutboxExecutor(CREATE_OFFER_REQUEST)
export class CreateOfferRequestExecutor implements CommandExecutor {
  private readonly logger = new Logger(CreateOfferRequestExecutor.name);
  private readonly locators = new WeakMap<AbortSignal, OfferRequestLocator>();
  // Where each brokerage's service took the deal's id last (external-id-placement.ts).
  private readonly placements = new Map<string, ExternalIdPlacement>();

  constructor(
    private readonly links: LinkRepository,
    private readonly issues: RecordIssues,
    private readonly clock: Clock,
    private readonly outbox: OutboxRepository,
    private readonly photoBatches: PhotoBatchesQueue,
    private readonly inbox: InboxRepository,
    private readonly requestStatus: RequestStatusService,
  ) {}

  // A create refused because the service already holds a request with the deal's id was received
  // before, by a send whose answer was lost: looked for, as that lost answer is, never given up.
  heldAlready(error: RemoteError): boolean {
    return saysExternalIdHeld(error);
  }

  // Confirmed received by the operator: a create answered without its id, which the write-back then
  // waits for the service to list (never sent again); the photos noted before the send go with it.
  receivedWithoutAnswer(command: OutboxCommand): SellerRequestResult {
    return { ...photosSentOf(command.result) };
  }

  async send(command: OutboxCommand, ctx: OutboxContext): Promise<SellerRequestResult> {
    const result = await this.create(command, ctx);
    // Kept before the ledger's writes: a service whose active list names no deal id (activeListShape)
    // may never show a request whose answer was lost.
    await ctx.keepAnswer?.(result);
    return result;
  }

  // The create, with its id placed where the service takes it (learnt from its refusals).
  private async create(command: OutboxCommand, ctx: OutboxContext): Promise<SellerRequestResult> {
    const dealId = splitRecordRef(command.recordRef).id;
    for (let placement = this.placements.get(ctx.brokerage.id) ?? 'request'; ;) {
      try {
        const { record, photosSent } = await createWithPhotos(
          placeExternalId(command.payload as CreateOfferRequestBody, placement),
          ctx,
          (photos) => this.outbox.noteSending(command.id, { media_sent: photos }),
          (photos, next, error) =>
            this.logger.warn(
              `deal ${dealId}: the service refused the offer request with ${photos} photo(s) (${errorMessage(error)}); trying ${next}, the rest follow as media updates`,
            ),
        );
        this.placements.set(ctx.brokerage.id, placement);
        const result = toSellerRequestResult(record);
        return photosSent === undefined ? result : { ...result, media_sent: photosSent };
      } catch (error) {
        const next = nextPlacement(error, placement);
        if (next === undefined) throw error;
        this.logger.warn(
          `deal ${dealId}: the service refused offer_request_external_id ${placement === 'request' ? 'on the request object' : 'beside it'} (${errorMessage(error)}); trying ${next === 'body' ? 'it beside the request object' : 'without it'}`,
        );
        await ctx.call?.refusedBeforeRetry?.(errorMessage(error));
        placement = next;
      }
    }
  }

  async writeBack(command: OutboxCommand, result: unknown, ctx: OutboxContext): Promise<void> {
    const dealId = splitRecordRef(command.recordRef).id;
    const body = command.payload as CreateOfferRequestBody;
    let created = (result ?? {}) as SellerRequestResult;
    if (created.offer_request_id === undefined) {
      // The service may answer without the id (the spec's declared response omits it): found by
      // the deal's id where the lists echo it, else by the inventory property id the answer gave.
      const found =
        (await findOfferRequestByExternalId(
          ctx.brokerage.id,
          dealId,
          this.links,
          this.locatorOf(ctx),
          sentAtOf(command),
        )) ??
        (created.inventory_property_id === undefined
          ? undefined
          : await this.locatorOf(ctx).byInventoryId(created.inventory_property_id, sentAtOf(command)));
      if (!found) {
        await this.showIdNotKnown(dealId, sentAtOf(command), created, ctx);
        throw new AwaitingEvidenceError(
          `deal ${dealId}: the offer request was created but its id is not known yet`,
        );
      }
      created = { ...created, ...found };
    }
    const requestId = String(created.offer_request_id);
    const status = created.offer_request_status;
    await this.links.upsertLinks(ctx.brokerage.id, LINK.offerRequest, [
      { remoteId: requestId, crmId: dealId, contentHash: updatableHash(body.property) },
    ]);
    // Offer events that waited for this link are applied at the inbox's next pass, not at the end of
    // their back-off (a minute and more once a lost answer took a while to find).
    await this.inbox.retryWaitingNow(ctx.brokerage.id, requestOrderingKey(requestId));
    // The photos the create could not carry, queued before the deal is written: a CRM that fails
    // the write holds up neither them nor, through them, the request id.
    const photos = body.media ?? [];
    const batches = await this.photoBatches.queueRest(
      ctx.brokerage.id,
      dealId,
      Number(requestId),
      photos,
      created.media_sent ?? photos.length,
    );
    if (batches > 0)
      this.logger.log(
        `deal ${dealId}: the photos the create could not carry follow in ${batches} media update(s)`,
      );
    const properties: Record<string, string | null> = { [DEAL.requestId]: requestId };
    // The create's own errors are cleared; not a refusal of the photos that followed it, shown on the
    // deal while this write-back waited on the CRM.
    if (!(await this.outbox.refusedAfter(ctx.brokerage.id, command.recordRef, command.id)))
      properties[DEAL.syncError] = null;
    // Only the service's own time: a reconcile that found the request in an offer does not know it.
    const submittedAt = toCrmDateTime(created.offer_requested_at);
    if (submittedAt) properties[DEAL.submittedAt] = submittedAt;
    if (created.inventory_property_id !== undefined)
      properties[DEAL.inventoryId] = String(created.inventory_property_id);
    // The deal shows it went out as a test record (a test-mode brokerage's deals too).
    if (body.request.test === true) properties[DEAL.testRecord] = 'true';
    // Display fields: neither a failing prelim call nor an odd answer holds up the write that
    // carries the request id.
    const prelim = await ctx.cashOffer
      .prelim({ inventory: pick(body.property, PRELIM_INVENTORY_FIELDS) })
      .then(readPrelimCounts)
      .catch((error: unknown): PrelimCounts => {
        this.logger.warn(`deal ${dealId}: prelim counts not read: ${errorMessage(error)}`);
        return {};
      });
    if (prelim.buyers !== undefined) properties[DEAL.prelimBuyers] = String(prelim.buyers);
    if (prelim.buyBoxes !== undefined) properties[DEAL.prelimBuyBoxes] = String(prelim.buyBoxes);
    const crm = await ctx.crm();
    // The create's answer is the service's word as of the send (request-status.order.ts); shown
    // unless another writer has shown a later one meanwhile.
    const first = { status, readAt: sentAtOf(command) };
    await this.requestStatus.showWithCreate(
      ctx.brokerage.id,
      requestId,
      dealId,
      first,
      async (shownStatus) => {
        const [written] = await crm.port.updateRecords('deal', [
          { id: dealId, properties: { ...properties, ...shownStatus } },
        ]);
        if (written && !written.ok) throw written.error;
      },
    );
    if (created.inventory_property_id !== undefined)
      await this.links.upsertLinks(ctx.brokerage.id, LINK.requestInventory, [
        { remoteId: requestId, crmId: dealId, contentHash: String(created.inventory_property_id) },
      ]);
  }

  async onRefused(command: OutboxCommand, error: RemoteError, ctx: OutboxContext): Promise<void> {
    const dealId = splitRecordRef(command.recordRef).id;
    const crm = await ctx.crm();
    await this.issues.report(crm, { id: dealId, properties: {} }, DEAL.syncError, [
      {
        message: refusalAdvice(error, crm.mapping),
        code: error.code,
      },
    ]);
  }

  // Every unknown create of one drain run is looked up through one locator (the run's abort signal
  // identifies the run), which reads the service's lists only as deep as the oldest lookup needs.
  private locatorOf(ctx: OutboxContext): OfferRequestLocator {
    let locator = this.locators.get(ctx.signal);
    if (!locator) {
      locator = new OfferRequestLocator(ctx.cashOffer, ctx.signal, () =>
        waitingOfferEchoes(this.inbox, ctx.brokerage.id),
      );
      this.locators.set(ctx.signal, locator);
    }
    return locator;
  }

  // Found in the service's lists: done. Not found within the brokerage's window after the send: the
  // service never received it (it lists every request it approves), so it is sent again.
  async reconcile(command: OutboxCommand, ctx: OutboxContext): Promise<OutboxReconciliation> {
    const dealId = splitRecordRef(command.recordRef).id;
    const sentAt = sentAtOf(command);
    const found = await findOfferRequestByExternalId(
      ctx.brokerage.id,
      dealId,
      this.links,
      this.locatorOf(ctx),
      sentAt,
    );
    // The photo count noted before the try that the service took.
    if (found) return { found: true, result: { ...found, ...photosSentOf(command.result) } };
    const windowMinutes =
      ctx.brokerage.config.cashOffer.unknownOutcomeWindowMinutes ?? DEFAULT_UNKNOWN_OUTCOME_WINDOW_MINUTES;
    const resendAt = new Date(sentAt.getTime() + windowMinutes * 60_000);
    if (this.clock.nowMs() >= resendAt.getTime()) {
      const locator = this.locatorOf(ctx);
      if (!(await locator.showsOursByExternalId())) {
        // Not shown by external id: the one listing at the deal's address and asking price that no
        // other deal of the brokerage holds is ours; none at all is the same proof as an echoing list.
        const body = command.payload as CreateOfferRequestBody;
        const match = await locator.byAddressAndAsking(body.property, body.request.offer_request_asking);
        if (typeof match === 'object') {
          const holder = await this.links.find(
            ctx.brokerage.id,
            LINK.offerRequest,
            String(match.offer_request_id),
          );
          if (!holder || holder.crmId === dealId)
            return {
              found: true,
              result: { ...match, found_by: 'active list (address)', ...photosSentOf(command.result) },
            };
        }
        // Ours may be on the list, unrecognisable: never sent again on its absence. It is found when
        // an offer on it names the deal (offers echo the external id).
        if (match !== 'absent')
          return this.stillUnknown(
            command,
            sentAt,
            `The service's active list does not show this brokerage's requests by the deal's id, so it cannot show whether this one arrived; ` +
              `it is found when an offer on it names the deal (in the offers list or in an offer event).`,
            ctx,
          );
      }
      return {
        found: false,
        provablyAbsent: true,
        hint: `not listed by the service ${windowMinutes} minutes after it was sent`,
      };
    }
    return this.stillUnknown(
      command,
      sentAt,
      `It is looked for in the service's lists (a request is listed once approved, and offers name it) ` +
        `until ${resendAt.toISOString()}, then sent again.`,
      ctx,
    );
  }

  // The service took the request, but neither its answer nor anything it lists names the request by
  // the deal yet: a request in review is listed by nobody, and a service whose lists never echo the
  // deal's id names it only in offers (its offer events may have been lost while the daemon was
  // down). The agent sees why the deal shows no offers; the write-back waits for the service to name
  // it however long that takes (AwaitingEvidenceError). Written once (the text does not change).
  private async showIdNotKnown(
    dealId: string,
    sentAt: Date,
    answered: SellerRequestResult,
    ctx: OutboxContext,
  ): Promise<void> {
    const property =
      answered.inventory_property_id === undefined
        ? ''
        : ` (inventory property ${answered.inventory_property_id})`;
    await this.tellDeal(
      dealId,
      {
        message:
          `The service took the offer request sent at ${sentAt.toISOString()}${property}; its answer named no request id, ` +
          `and nothing the service lists names this deal's request yet, so its status and offers cannot be shown. ` +
          `The deal is linked as soon as the service names it: in its active list once approved, or in an offer on the request ` +
          `(the offers list or an offer event). Nothing is sent again.`,
        code: 'REQUEST_ID_UNKNOWN',
      },
      ctx,
    );
  }

  // Not known yet whether the service has it: the deal says why and how an operator who knows it
  // never arrived can send it.
  private async stillUnknown(
    command: OutboxCommand,
    sentAt: Date,
    why: string,
    ctx: OutboxContext,
  ): Promise<OutboxReconciliation> {
    const dealId = splitRecordRef(command.recordRef).id;
    const hint =
      `${why} An operator who knows the service has no request with offer_request_external_id "${dealId}" can send it now: ` +
      `cash-offer-sync replay --commands --id ${command.id} --unknown --confirm-absent (payload hash ${contentHash(command.payload)}); ` +
      `one who sees it there: cash-offer-sync confirm-received --id ${command.id} --request <its offer_request_id> ` +
      `(never sent again, linked at once; without --request it is linked only once the service lists it by the deal's id).`;
    await this.showUnknown(dealId, sentAt, hint, ctx);
    return { found: false, provablyAbsent: false, hint };
  }

  // The agent sees why nothing seems to happen; written once (the text does not change).
  private showUnknown(dealId: string, sentAt: Date, hint: string, ctx: OutboxContext): Promise<void> {
    return this.tellDeal(
      dealId,
      {
        message: `The offer request was sent at ${sentAt.toISOString()} but the answer was lost, so it is not known yet whether the service received it. ${hint}`,
        code: 'OUTCOME_UNKNOWN',
      },
      ctx,
    );
  }

  // The deal's sync error says `issue` (RecordIssues writes it only when its text changes).
  private async tellDeal(dealId: string, issue: RecordIssue, ctx: OutboxContext): Promise<void> {
    const crm = await ctx.crm();
    const [deal] = await crm.port.getRecords('deal', [dealId], [DEAL.syncError]);
    if (!deal) return;
    await this.issues.report(crm, deal, DEAL.syncError, [issue]);
  }
}

function sentAtOf(command: OutboxCommand): Date {
  return command.sentAt ?? command.updatedAt;
}

function pick(obj: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((k) => obj[k] !== undefined).map((k) => [k, obj[k]]));
}

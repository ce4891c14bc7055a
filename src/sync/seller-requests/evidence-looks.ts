import { Injectable, Logger } from '@nestjs/common';
import { Clock } from '../../common/clock';
import type { CreateOfferRequestBody } from '../../cash-offer/schema';
import {
  InboxRepository,
  LinkRepository,
  OutboxRepository,
  type Link,
  type OutboxCommand,
} from '../../ledger';
import { requestOrderingKey } from '../../ledger/inbox-ordering';
import { LINK } from '../common/listing-deal.properties';
import { updatableHash } from '../common/updatable-fields';
import { CrmWriteBackExecutor, WRITE_BACK_OPERATION } from '../outbox/crm-write-back.executor';
import { splitRecordRef } from '../outbox/outbox-retry.policy';
import { CREATE_OFFER_REQUEST } from './create-offer-request.executor';
import { CLOCK_SKEW_MARGIN_MS } from './offer-request.finder';
import { createKey } from './seller-requests.consumer';

// The service has just shown what a waiting command looks for: an offer event, an offer in
// GET /offers or the active list naming a deal's request while that deal's create is unfinished (its
// answer lost, or answered without the request id), a buyer's UPDATE on a counter whose answer was
// lost. The command reads it at its next look, which the outbox's back-off, a backlog or a daemon
// killed every few seconds may put minutes away; an offer on that request that expires meanwhile can
// drop from GET /offers with no record ever made of it. So the look is brought forward to now (the
// daemon drains at once: drain-when-queued.ts), and a request the reconcile finds named by the deal's
// id is linked there and then, as the create's own look would link it.
@Injectable()
export class EvidenceLooks {
  private readonly logger = new Logger(EvidenceLooks.name);

  constructor(
    private readonly links: LinkRepository,
    private readonly outbox: OutboxRepository,
    private readonly inbox: InboxRepository,
    private readonly clock: Clock,
  ) {}

  // The deal's create, while its request is not linked yet; undefined once linked or never sent.
  async pendingCreateOf(brokerageId: string, dealId: string): Promise<OutboxCommand | undefined> {
    const create = await this.outbox.findByKey(createKey(brokerageId, dealId, 1));
    if (!create || create.state === 'dead') return undefined;
    if (await this.links.findByCrmId(brokerageId, LINK.offerRequest, dealId)) return undefined;
    return create;
  }

  // The earliest a linked request can have been made at the service: when its deal's first create
  // was queued, or, for a request the ledger holds no create of (pruned, or linked by an earlier
  // install), when it was linked.
  async requestAskedAt(requestLink: Link): Promise<Date> {
    const first = await this.outbox.findByKey(createKey(requestLink.brokerageId, requestLink.crmId, 1));
    return first && first.createdAt < requestLink.createdAt ? first.createdAt : requestLink.createdAt;
  }

  // Brings forward the look `command` waits on: its reconcile while its answer is unknown, its
  // write-back once done (a create answered without the id). Says what it did, for the caller's
  // message ('' if nothing).
  async lookNow(command: OutboxCommand): Promise<string> {
    if (command.state === 'unknown')
      return (await this.outbox.lookForSoon(command.id)) ? ', looked for now' : '';
    if (command.state !== 'done') return '';
    const writeBack = await this.outbox.findByKey(CrmWriteBackExecutor.keyOf(command));
    return writeBack && (await this.outbox.lookForSoon(writeBack.id, ['failed']))
      ? ', its write-back tried now'
      : '';
  }

  // The service lists `requestId` under `dealId`'s id, which it echoes to the request's owner only
  // (the same evidence the create's own look takes: offer-request.finder.ts). A deal whose create the
  // service took (done without the id, or its answer lost) and that no request is linked to yet is
  // linked to it now, offer events waiting for the link are tried now, and the create's look comes
  // now to finish the rest (the deal's request id, status and photos). Answers whether it linked.
  async requestNamed(
    brokerageId: string,
    requestId: number,
    dealId: string,
    why = "as the service lists it under the deal's id",
  ): Promise<boolean> {
    const remoteId = String(requestId);
    if (await this.links.find(brokerageId, LINK.offerRequest, remoteId)) return false;
    const create = await this.pendingCreateOf(brokerageId, dealId);
    if (!create || (create.state !== 'done' && create.state !== 'unknown')) return false;
    await this.linkCreate(create, requestId, why);
    return true;
  }

  // The create's deal linked to `requestId`; what waited on the link is tried now.
  private async linkCreate(create: OutboxCommand, requestId: number, why: string): Promise<void> {
    const { brokerageId } = create;
    const dealId = splitRecordRef(create.recordRef).id;
    const remoteId = String(requestId);
    const body = create.payload as CreateOfferRequestBody;
    await this.links.upsertLinks(brokerageId, LINK.offerRequest, [
      { remoteId, crmId: dealId, contentHash: updatableHash(body.property) },
    ]);
    await this.inbox.retryWaitingNow(brokerageId, requestOrderingKey(requestId));
    const looked = await this.lookNow(create);
    this.logger.log(
      `deal ${dealId}: offer request ${requestId} linked, ${why} (the create is ${create.state}${looked})`,
    );
  }

  // The operator found in the service the request a deal's create made, where nothing the service
  // lists names the deal (two creates whose answers were lost at once are told apart by nothing it
  // lists), and names it: `cli confirm-received --id N --request R`. Linked as the service naming it
  // would link it. Says why not where it cannot be that deal's.
  async namedByOperator(
    commandId: number,
    requestId: number,
    brokerageId?: string,
  ): Promise<{ linked: true; dealId: string; brokerageId: string } | { linked: false; reason: string }> {
    const command = await this.outbox.get(commandId);
    if (!command) return { linked: false, reason: `there is no outbox command ${commandId}` };
    if (brokerageId !== undefined && command.brokerageId !== brokerageId)
      return {
        linked: false,
        reason: `command ${commandId} belongs to brokerage ${command.brokerageId}, not ${brokerageId}`,
      };
    if (command.operation !== CREATE_OFFER_REQUEST)
      return {
        linked: false,
        reason: `command ${commandId} is a ${command.operation}; --request names the offer request of a create_offer_request`,
      };
    const dealId = splitRecordRef(command.recordRef).id;
    const holder = await this.links.find(command.brokerageId, LINK.offerRequest, String(requestId));
    if (holder)
      return {
        linked: false,
        reason:
          holder.crmId === dealId
            ? `deal ${dealId} is linked to offer request ${requestId} already`
            : `offer request ${requestId} is deal ${holder.crmId}'s already`,
      };
    const own = await this.links.findByCrmId(command.brokerageId, LINK.offerRequest, dealId);
    if (own)
      return { linked: false, reason: `deal ${dealId} is linked to offer request ${own.remoteId} already` };
    if (command.state !== 'unknown' && command.state !== 'done')
      return {
        linked: false,
        reason: `command ${commandId} is ${command.state}: only a create whose answer was lost (unknown), or done without its request id, waits for its request`,
      };
    await this.linkCreate(command, requestId, 'as the operator named it');
    return { linked: true, dealId, brokerageId: command.brokerageId };
  }

  // A complete pass read offers on requests of this account that no deal holds (`firstOfferAt`: each
  // request's earliest offer, by the service's clock). GET /offers lists only the caller's requests,
  // so such a request was made with this brokerage's key: by a create whose answer was lost, or that
  // was answered without its id, where nothing the service lists names the deal (a service that
  // echoes the deal's id only in offer events, sent once, while the daemon was down: full soak
  // 20261255 left a deal unlinked for good, its two offers never shown). Where exactly one such
  // request, its first offer made after the send, meets exactly one deal whose create may have made
  // it, that request is the deal's. Never where the account is seen making requests outside the
  // daemon (LINK.requestOutside): there a request no deal holds may be anyone's. Answers whether it
  // linked one.
  async soleUnclaimedRequest(
    brokerageId: string,
    firstOfferAt: ReadonlyMap<number, number>,
  ): Promise<boolean> {
    const held = await this.links.findMany(
      brokerageId,
      LINK.offerRequest,
      [...firstOfferAt.keys()].map(String),
    );
    const unclaimed = [...firstOfferAt.keys()].filter((requestId) => !held.has(String(requestId)));
    if (unclaimed.length === 0) return false;
    if ((await this.links.listActive(brokerageId, LINK.requestOutside)).length > 0) return false;
    const creates = await this.unlinkedCreates(brokerageId);
    if (creates.length === 0) {
      // No create of ours can have made it: this account makes requests outside the daemon.
      const [requestId] = unclaimed;
      await this.links.insertMissing(brokerageId, LINK.requestOutside, [
        { remoteId: String(requestId), crmId: 'outside', contentHash: this.clock.now().toISOString() },
      ]);
      this.logger.log(
        `${brokerageId}: offers name offer request ${requestId}, which no deal holds and no create of the daemon can have made: the account makes requests outside the daemon, so a create whose answer was lost is found only by what names its deal`,
      );
      return false;
    }
    if (creates.length !== 1) return false;
    const [create] = creates;
    const sentAt = (create.sentAt ?? create.createdAt).getTime();
    // An offer time that cannot be read counts as recent: it can make two requests ambiguous, never
    // leave one out.
    const since = unclaimed.filter((id) => !((firstOfferAt.get(id) ?? NaN) < sentAt - CLOCK_SKEW_MARGIN_MS));
    if (since.length !== 1) return false;
    return this.requestNamed(
      brokerageId,
      since[0],
      splitRecordRef(create.recordRef).id,
      `as the one request of this account no deal holds, its offers made after the one create whose answer never named its request`,
    );
  }

  // Creates the service may have taken whose deal no request is linked to yet: sent and unsettled
  // (an answer lost or on its way, a retry due), or done with their write-back still waiting for the
  // request id. One per deal.
  private async unlinkedCreates(brokerageId: string): Promise<OutboxCommand[]> {
    const creates = new Map<string, OutboxCommand>();
    for (const command of await this.outbox.unsettled(brokerageId, [
      CREATE_OFFER_REQUEST,
      WRITE_BACK_OPERATION,
    ])) {
      const create =
        command.operation === CREATE_OFFER_REQUEST
          ? command
          : await this.outbox.get(Number((command.payload as { commandId?: unknown } | null)?.commandId));
      if (create?.operation !== CREATE_OFFER_REQUEST || create.sentAt === null) continue;
      const dealId = splitRecordRef(create.recordRef).id;
      if (!(await this.links.findByCrmId(brokerageId, LINK.offerRequest, dealId)))
        creates.set(dealId, create);
    }
    return [...creates.values()];
  }
}

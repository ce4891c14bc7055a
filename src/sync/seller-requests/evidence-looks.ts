import { Injectable, Logger } from '@nestjs/common';
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
import { CrmWriteBackExecutor } from '../outbox/crm-write-back.executor';
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
  async requestNamed(brokerageId: string, requestId: number, dealId: string): Promise<boolean> {
    const remoteId = String(requestId);
    if (await this.links.find(brokerageId, LINK.offerRequest, remoteId)) return false;
    const create = await this.pendingCreateOf(brokerageId, dealId);
    if (!create || (create.state !== 'done' && create.state !== 'unknown')) return false;
    const body = create.payload as CreateOfferRequestBody;
    await this.links.upsertLinks(brokerageId, LINK.offerRequest, [
      { remoteId, crmId: dealId, contentHash: updatableHash(body.property) },
    ]);
    await this.inbox.retryWaitingNow(brokerageId, requestOrderingKey(requestId));
    const looked = await this.lookNow(create);
    this.logger.log(
      `deal ${dealId}: offer request ${requestId} linked, as the service lists it under the deal's id (the create is ${create.state}${looked})`,
    );
    return true;
  }
}

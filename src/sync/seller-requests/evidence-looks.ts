import { Injectable } from '@nestjs/common';
import { LinkRepository, OutboxRepository, type OutboxCommand } from '../../ledger';
import { LINK } from '../common/listing-deal.properties';
import { CrmWriteBackExecutor } from '../outbox/crm-write-back.executor';
import { createKey } from './seller-requests.consumer';

// The service has just shown what a waiting command looks for: an offer event or the active list
// naming a deal's request while that deal's create is unfinished (its answer lost, or answered
// without the request id), a buyer's UPDATE on a counter whose answer was lost. The command reads it
// at its next look, which the outbox's back-off may put a minute and more away; an offer on that
// request that expires meanwhile can drop from GET /offers with no record ever made of it. So the
// look is brought forward to now (the daemon drains at once: drain-when-queued.ts).
@Injectable()
export class EvidenceLooks {
  constructor(
    private readonly links: LinkRepository,
    private readonly outbox: OutboxRepository,
  ) {}

  // The deal's create, while its request is not linked yet; undefined once linked or never sent.
  async pendingCreateOf(brokerageId: string, dealId: string): Promise<OutboxCommand | undefined> {
    const create = await this.outbox.findByKey(createKey(brokerageId, dealId, 1));
    if (!create || create.state === 'dead') return undefined;
    if (await this.links.findByCrmId(brokerageId, LINK.offerRequest, dealId)) return undefined;
    return create;
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

  // The service lists `requestId` under `dealId`'s id: the deal's unfinished create, if any, looks now.
  async requestListed(brokerageId: string, requestId: number, dealId: string): Promise<boolean> {
    if (await this.links.find(brokerageId, LINK.offerRequest, String(requestId))) return false;
    const create = await this.pendingCreateOf(brokerageId, dealId);
    return create !== undefined && (await this.lookNow(create)) !== '';
  }
}

import { Injectable } from '@nestjs/common';
import type { CrmRecordRef } from '../../crm';
import { LinkRepository, OutboxRepository, outboxKey } from '../../ledger';
import { LINK } from '../common/listing-deal.properties';
import type { KnownTask } from './offer-clock.plan';
import { COMPLETE_OFFER_TASK, CREATE_OFFER_TASK, OFFER_TASK_LINK } from './offer-clocks.constants';
import type { CompleteOfferTaskPayload, CreateOfferTaskPayload } from './offer-task.executors';

// The clocks' tasks in the ledger, for the offer and the counter clocks alike: which a clock has
// made or queued, and the outbox commands that make and close them (one per key, ever).
@Injectable()
export class OfferTaskQueue {
  constructor(
    private readonly links: LinkRepository,
    private readonly outbox: OutboxRepository,
  ) {}

  // The tasks of these keys (plus the open ones among `open`) a clock has made or queued: a linked
  // task is open until the daemon closes it; a queued (or refused) create is known, so it is never
  // queued twice.
  async known(
    brokerageId: string,
    offerId: number,
    keys: readonly string[],
    open: readonly { remoteId: string }[],
  ): Promise<KnownTask[]> {
    const all = new Set([...keys, ...open.map((t) => t.remoteId)]);
    const links = await this.links.findMany(brokerageId, OFFER_TASK_LINK, [...all]);
    const known: KnownTask[] = [];
    for (const key of all) {
      if (links.has(key)) {
        known.push({ key, open: open.some((t) => t.remoteId === key) });
        continue;
      }
      if (await this.outbox.findByKey(createKey(brokerageId, offerId, key))) known.push({ key, open: false });
    }
    return known;
  }

  // The listing deal of an offer request: the agent who owns it gets the agent's tasks.
  async listingDeal(brokerageId: string, requestId: number | undefined): Promise<CrmRecordRef | undefined> {
    if (requestId === undefined) return undefined;
    const link = await this.links.find(brokerageId, LINK.offerRequest, String(requestId));
    return link ? { kind: 'deal', id: link.crmId } : undefined;
  }

  async create(brokerageId: string, payload: CreateOfferTaskPayload): Promise<void> {
    await this.outbox.enqueue({
      brokerageId,
      idempotencyKey: createKey(brokerageId, payload.offerId, payload.key),
      operation: CREATE_OFFER_TASK,
      recordRef: `offer:${payload.offerId}`,
      payload,
    });
  }

  // True when this queued the command (a pass before may have, while it waits for the drain).
  async complete(brokerageId: string, offerId: number, key: string, taskId: string): Promise<boolean> {
    const payload: CompleteOfferTaskPayload = { key, taskId };
    const { created } = await this.outbox.enqueue({
      brokerageId,
      idempotencyKey: outboxKey(brokerageId, `offer:${offerId}`, `${COMPLETE_OFFER_TASK}:${key}`),
      operation: COMPLETE_OFFER_TASK,
      recordRef: `offer:${offerId}`,
      payload,
    });
    return created;
  }
}

function createKey(brokerageId: string, offerId: number, taskKey: string): string {
  return outboxKey(brokerageId, `offer:${offerId}`, `${CREATE_OFFER_TASK}:${taskKey}`);
}

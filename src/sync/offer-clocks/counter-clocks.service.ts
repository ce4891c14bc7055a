import { Injectable } from '@nestjs/common';
import type { BrokerageCrm } from '../../brokerages/brokerage-crm';
import type { CounterOfferBody } from '../../cash-offer/schema';
import { Clock } from '../../common/clock';
import type { LoadedBrokerage } from '../../config/config.loader';
import { LinkRepository, OutboxRepository, type Link } from '../../ledger';
import { LINK } from '../common/listing-deal.properties';
import { expiryMs } from '../common/expiry';
import type { CounterOfferPayload } from '../decisions/counter-offer.executor';
import {
  counterCommandKey,
  decodeCounterLink,
  encodeCounterLink,
  type CounterLinkContent,
} from '../offers/counter-link';
import { isAnsweredCounter } from '../offers/offer-record.view';
import {
  counterLeadTaskKey,
  counterOfferIdOfTaskKey,
  planCounterClock,
  type ClockedCounter,
} from './counter-clock.plan';
import { counterTaskText } from './counter-task.text';
import type { ClockAction } from './offer-clock.plan';
import { clockSettings } from './offer-clock.settings';
import { OFFER_TASK_LINK } from './offer-clocks.constants';
import type { CreateOfferTaskPayload } from './offer-task.executors';
import { OfferTaskQueue } from './offer-task.queue';

export interface CounterClockOutcome {
  tasksQueued: number;
  tasksClosed: number;
}

// Counter clocks, run after a complete offers-reconcile pass, beside the offer clocks: each counter
// this brokerage sent that the buyer has not answered gets the listing agent's reminder at the lead
// times before its `counter_offer_expires`; the reminders close once the buyer answers (the ledger's
// counter link, kept by the buyer's UPDATE, the accepting offer and the cascade), once the counter
// runs out, or once the countered offer is no longer listed. Read from the ledger's counter links,
// so it holds whichever way the service lists a countered offer (countered, active or rejected).
@Injectable()
export class CounterClocks {
  constructor(
    private readonly links: LinkRepository,
    private readonly outbox: OutboxRepository,
    private readonly tasks: OfferTaskQueue,
    private readonly clock: Clock,
  ) {}

  async afterPass(
    crm: BrokerageCrm,
    brokerage: LoadedBrokerage,
    pass: { listed: ReadonlySet<string> },
  ): Promise<CounterClockOutcome> {
    const outcome: CounterClockOutcome = { tasksQueued: 0, tasksClosed: 0 };
    const settings = clockSettings(brokerage.config.offerClocks);
    const id = crm.brokerageId;
    const now = this.clock.nowMs();
    const openTasks = (await this.links.listActive(id, OFFER_TASK_LINK)).filter(
      (t) => counterOfferIdOfTaskKey(t.remoteId) !== undefined,
    );
    const horizon = settings.enabled ? (settings.leadsMs[0] ?? 0) : 0;
    for (const link of await this.links.listActive(id, LINK.counter)) {
      const offerId = Number(link.remoteId);
      const open = openTasks.filter((t) => counterOfferIdOfTaskKey(t.remoteId) === offerId);
      let counter = decodeCounterLink(link);
      if (open.length === 0 && isAnsweredCounter(counter.status)) continue;
      if (counter.expiresMs === undefined) counter = await this.learnExpiry(id, link, counter);
      const expires = counter.expiresMs ?? null;
      // Nothing to make and nothing to close: most counters, on most passes.
      if (open.length === 0 && (expires === null || expires <= now || expires > now + horizon)) continue;
      const clocked: ClockedCounter = {
        offerId,
        expiresMs: expires,
        state: isAnsweredCounter(counter.status)
          ? 'answered'
          : pass.listed.has(link.remoteId)
            ? 'waiting'
            : 'gone',
      };
      const known = await this.tasks.known(
        id,
        offerId,
        settings.leadsMs.map((lead) => counterLeadTaskKey(offerId, lead)),
        open,
      );
      for (const action of planCounterClock(clocked, known, now, settings)) {
        if (action.kind === 'create_task') {
          if (await this.queueCreate(id, offerId, counter, action, expires!)) outcome.tasksQueued += 1;
        } else if (action.kind === 'complete_task') {
          const task = open.find((t) => t.remoteId === action.key);
          if (!task) continue;
          if (await this.tasks.complete(id, offerId, action.key, task.crmId)) outcome.tasksClosed += 1;
        }
      }
    }
    return outcome;
  }

  // The reminder hangs on the countered offer's record, for the agent who owns the listing. False
  // when the record is not linked yet (the next pass).
  private async queueCreate(
    brokerageId: string,
    offerId: number,
    counter: CounterLinkContent,
    action: Extract<ClockAction, { kind: 'create_task' }>,
    expiresMs: number,
  ): Promise<boolean> {
    const record = await this.links.find(brokerageId, LINK.offer, String(offerId));
    if (!record) return false;
    const sent = await this.sentBody(brokerageId, offerId);
    const requestId = counter.requestId ?? sent?.requestId;
    const text = counterTaskText(
      {
        offerId,
        expiresMs,
        ...(requestId !== undefined ? { requestId } : {}),
        ...((counter.amount ?? sent?.body.counter_offer_amount) !== undefined
          ? { amount: counter.amount ?? sent!.body.counter_offer_amount }
          : {}),
        ...(sent ? { body: sent.body } : {}),
      },
      action.lead,
    );
    const listing = await this.tasks.listingDeal(brokerageId, requestId);
    const payload: CreateOfferTaskPayload = {
      key: action.key,
      offerId,
      expiresAt: new Date(expiresMs).toISOString(),
      about: { kind: 'deal', id: record.crmId },
      ...text,
      dueAt: new Date(action.dueMs).toISOString(),
      ...(listing ? { ownerOf: listing } : {}),
    };
    await this.tasks.create(brokerageId, payload);
    return true;
  }

  // What the daemon sent, while the outbox keeps the counter's command (pruned with old runs).
  private async sentBody(
    brokerageId: string,
    offerId: number,
  ): Promise<{ body: CounterOfferBody; requestId?: number; expires?: string } | undefined> {
    const command = await this.outbox.findByKey(counterCommandKey(brokerageId, offerId));
    const payload = command?.payload as Partial<CounterOfferPayload> | undefined;
    if (!payload?.body) return undefined;
    // The expiry the service was sent, where it was filled in for the agent (CounterAnswer).
    const expires = (command?.result as { expires_sent?: unknown } | null | undefined)?.expires_sent;
    return {
      body: payload.body,
      ...(typeof expires === 'string' ? { expires } : {}),
      ...(payload.requestId !== undefined ? { requestId: payload.requestId } : {}),
    };
  }

  // A counter linked before its link kept the expiry: read once from the command that sent it and
  // kept (null when the command is gone or sent none, so it is not looked up again).
  private async learnExpiry(
    brokerageId: string,
    link: Link,
    counter: CounterLinkContent,
  ): Promise<CounterLinkContent> {
    const sent = await this.sentBody(brokerageId, Number(link.remoteId));
    const learnt = { ...counter, expiresMs: expiryMs(sent?.expires ?? sent?.body.counter_offer_expires) };
    // Compare-and-set: a buyer's answer written since the read is never overwritten.
    await this.links.replaceContent(
      brokerageId,
      LINK.counter,
      link.remoteId,
      link.contentHash,
      encodeCounterLink(learnt),
    );
    return learnt;
  }
}

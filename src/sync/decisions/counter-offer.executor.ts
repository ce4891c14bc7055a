import { Injectable } from '@nestjs/common';
import type { CashOfferError } from '../../cash-offer';
import type { CounterOfferBody } from '../../cash-offer/schema';
import { LinkRepository, type OutboxCommand } from '../../ledger';
import { LINK } from '../common/listing-deal.properties';
import { listAllOffers } from '../common/offer-pages';
import { OutboxExecutor } from '../outbox/outbox-executor.decorator';
import type { CommandExecutor, OutboxContext, OutboxReconciliation } from '../outbox/outbox.executors';
import { COUNTER_OFFER, type DecisionTarget } from './decision.command';
import { OfferRecordOutcome } from './offer-record.outcome';

export interface CounterOfferPayload extends DecisionTarget {
  body: CounterOfferBody;
}

// Flow 6: POST /counter-offers from the counter fields of an offer record, then the record shows
// the counter (countered, counter id and status).
@Injectable()
@OutboxExecutor(COUNTER_OFFER)
export class CounterOfferExecutor implements CommandExecutor {
  constructor(
    private readonly outcome: OfferRecordOutcome,
    private readonly links: LinkRepository,
  ) {}

  async send(
    command: OutboxCommand,
    ctx: OutboxContext,
  ): Promise<{ counter_offer_id?: number; counter_offer_status?: string }> {
    const counter = await ctx.cashOffer.counterOffer((command.payload as CounterOfferPayload).body, ctx.call);
    return {
      counter_offer_id: counter?.counter_offer_id,
      counter_offer_status: counter?.counter_offer_status,
    };
  }

  async writeBack(command: OutboxCommand, result: unknown, ctx: OutboxContext): Promise<void> {
    const payload = command.payload as CounterOfferPayload;
    const counter = (result ?? {}) as { counter_offer_id?: number; counter_offer_status?: string };
    if (counter.counter_offer_id !== undefined) {
      const known = await this.links.find(ctx.brokerage.id, LINK.counter, String(payload.offerId));
      // A buyer's answer may have arrived first; never move the counter's status back to pending.
      if (!known) {
        await this.links.upsertLinks(ctx.brokerage.id, LINK.counter, [
          {
            remoteId: String(payload.offerId),
            crmId: String(counter.counter_offer_id),
            contentHash: counter.counter_offer_status ?? 'pending',
          },
        ]);
      }
    }
    await this.outcome.show(await ctx.crm(), ctx.cashOffer, payload, null);
  }

  async onRefused(command: OutboxCommand, error: CashOfferError, ctx: OutboxContext): Promise<void> {
    const payload = command.payload as CounterOfferPayload;
    const message = `The Cash Offer service refused the counter on offer ${payload.offerId}: ${error.message}`;
    await this.outcome.show(await ctx.crm(), ctx.cashOffer, payload, message);
  }

  // A stored counter makes its offer "countered"; an offer still active has none.
  async reconcile(command: OutboxCommand, ctx: OutboxContext): Promise<OutboxReconciliation> {
    const payload = command.payload as CounterOfferPayload;
    const offer = (await listAllOffers(ctx.cashOffer, payload.requestId)).find(
      (o) => o.offer_id === payload.offerId,
    );
    if (offer?.offer_status === 'countered') return { found: true, result: {} };
    if (offer?.offer_status === 'active')
      return { found: false, provablyAbsent: true, hint: 'the offer is not countered' };
    return {
      found: false,
      provablyAbsent: false,
      hint: `offer ${payload.offerId} is ${offer?.offer_status ?? 'not listed'}; check its counter offers in the service before replaying command ${command.id}`,
    };
  }
}

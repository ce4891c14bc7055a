import { Injectable } from '@nestjs/common';
import type { CashOfferError } from '../../cash-offer';
import type { CounterOfferBody } from '../../cash-offer/schema';
import { LinkRepository, type OutboxCommand } from '../../ledger';
import { LINK } from '../common/listing-deal.properties';
import { listAllOffers } from '../common/offer-pages';
import { OutboxExecutor } from '../outbox/outbox-executor.decorator';
import type { CommandExecutor, OutboxContext, OutboxReconciliation } from '../outbox/outbox.executors';
import type { Offer } from '../../cash-offer/schema';
import { counterCrmId, encodeCounterLink } from '../offers/counter-link';
import { positiveId } from '../offers/offer-claim';
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
    const known = await this.links.find(ctx.brokerage.id, LINK.counter, String(payload.offerId));
    // A buyer's answer may have arrived first; never move the counter's status back to pending.
    if (!known) {
      // How the service lists the offer right after the counter: a service that lists countered
      // offers as rejected says nothing about the buyer's answer by listing it so later.
      const listed = (await listAllOffers(ctx.cashOffer, payload.requestId)).find(
        (o) => o.offer_id === payload.offerId,
      );
      const id = positiveId(counter.counter_offer_id);
      await this.links.upsertLinks(ctx.brokerage.id, LINK.counter, [
        {
          remoteId: String(payload.offerId),
          crmId: counterCrmId(String(payload.offerId), id === undefined ? undefined : String(id)),
          contentHash: encodeCounterLink({
            status: counter.counter_offer_status ?? 'pending',
            requestId: payload.requestId,
            ...(listed ? { listedAtSend: listed.offer_status } : {}),
          }),
        },
      ]);
    }
    await this.outcome.show(await ctx.crm(), ctx.cashOffer, payload, null);
  }

  async onRefused(command: OutboxCommand, error: CashOfferError, ctx: OutboxContext): Promise<void> {
    const payload = command.payload as CounterOfferPayload;
    const message = `The Cash Offer service refused the counter on offer ${payload.offerId}: ${error.message}`;
    await this.outcome.show(await ctx.crm(), ctx.cashOffer, payload, message);
  }

  // The service has no counter lookup: the countered offer and its request's other offers tell.
  // Found: the offer is countered, the buyer made an offer by accepting a counter on this request,
  // or the offer left `active` with no other offer accepted (only our counter moves it: an agent
  // makes one decision per offer). Provably absent only where the offer is still `countered`-free
  // and `active` and this service lists countered offers as `countered` (seen on another offer).
  async reconcile(command: OutboxCommand, ctx: OutboxContext): Promise<OutboxReconciliation> {
    const payload = command.payload as CounterOfferPayload;
    const offers = await listAllOffers(ctx.cashOffer, payload.requestId);
    const offer = offers.find((o) => o.offer_id === payload.offerId);
    const verdict = counterVerdict(payload.offerId, offers);
    if (verdict.found) return { found: true, result: verdict.result };
    if (offer?.offer_status === 'active' && (await this.servicesListCountered(ctx.brokerage.id)))
      return { found: false, provablyAbsent: true, hint: 'the offer is not countered' };
    return {
      found: false,
      provablyAbsent: false,
      hint: `offer ${payload.offerId} is ${offer?.offer_status ?? 'not listed'}; check its counter offers in the service before replaying command ${command.id}`,
    };
  }

  // Whether this brokerage's service has shown a countered offer as `countered`: then an offer
  // listed `active` has no counter. A service that keeps countered offers `active` proves nothing.
  private async servicesListCountered(brokerageId: string): Promise<boolean> {
    return (await this.links.countByContent(brokerageId, LINK.counter, '"l":"countered"')) > 0;
  }
}

// What the request's offers say of a counter on `offerId` (pure, see reconcile).
export function counterVerdict(
  offerId: number,
  offers: readonly Offer[],
): { found: true; result: { counter_offer_id?: number; counter_offer_status?: string } } | { found: false } {
  const offer = offers.find((o) => o.offer_id === offerId);
  if (!offer) return { found: false };
  if (offer.offer_status === 'countered') return { found: true, result: {} };
  const byCounter = offers.find(
    (o) => o.offer_id !== offerId && o.offer_is_counter_offer === true && positiveId(o.counter_offer_id),
  );
  const otherAccepted = offers.some(
    (o) => o.offer_id !== offerId && o.offer_status === 'accepted' && o !== byCounter,
  );
  if (byCounter && byCounter.offer_status === 'accepted')
    return {
      found: true,
      result: { counter_offer_id: positiveId(byCounter.counter_offer_id), counter_offer_status: 'accepted' },
    };
  if (offer.offer_status === 'rejected' && !otherAccepted)
    return { found: true, result: { counter_offer_status: 'rejected' } };
  return { found: false };
}

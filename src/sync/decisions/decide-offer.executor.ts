import { Injectable, Logger } from '@nestjs/common';
import type { RemoteError } from '../../common/remote-error';
import type { Offer } from '../../cash-offer/schema';
import type { OutboxCommand } from '../../ledger';
import { OutboxExecutor } from '../outbox/outbox-executor.decorator';
import { unknownOutcomeChoices } from '../outbox/unknown-outcome.choices';
import type {
  CommandExecutor,
  OutboxContext,
  OutboxReconciliation,
  ReconcileCause,
} from '../outbox/outbox.executors';
import { listAllOffers } from '../common/offer-pages';
import {
  DECIDE_OFFER,
  decisionDeadline,
  decisionOrderingKey,
  type DecideOfferPayload,
} from './decision.command';
import { OfferRecordOutcome } from './offer-record.outcome';
import {
  closedWithoutSale,
  endedWithoutDecision,
  isAnsweredCounter,
  isCounteredWord,
} from '../offers/offer-record.view';
import { decodeCounterLink, endCounterWithOffer } from '../offers/counter-link';
import { LINK } from '../common/listing-deal.properties';
import type { AgentRequest } from '../offers/agent-held-stage';
import { LinkRepository } from '../../ledger';
import { Clock } from '../../common/clock';
import { ranOutBy } from '../common/expiry';
import { errorMessage } from '../common/job-counts';
import { OffersService } from '../offers/offers.service';
import { UnlistedOffers } from '../offers/unlisted-offers';

const VERB = { accepted: 'accept', rejected: 'reject' } as const;

function requestOf(payload: DecideOfferPayload): AgentRequest {
  return { operation: DECIDE_OFFER, decision: payload.decision };
}

// Flow 5: PATCH /offers for an agent's accept or reject, then the record in its result stage and
// the cascade the service performed (other offers rejected, request under contract).
@Injectable()
@OutboxExecutor(DECIDE_OFFER)
export class DecideOfferExecutor implements CommandExecutor {
  // A 400/422 on an offer already decided this way (or already countered) is read as done.
  readonly refusalsReconciled = true;

  // Of no use once the offer has run out: sent ahead of the drain's backlog (send-order.ts).
  deadline(command: OutboxCommand): number | undefined {
    return decisionDeadline(command);
  }

  orderingKey(command: OutboxCommand): string {
    return decisionOrderingKey(command);
  }

  private readonly logger = new Logger(DecideOfferExecutor.name);

  constructor(
    private readonly outcome: OfferRecordOutcome,
    private readonly links: LinkRepository,
    private readonly offers: OffersService,
    private readonly unlisted: UnlistedOffers,
    private readonly clock: Clock,
  ) {}

  // Confirmed received by the operator: answered with no body, as a 204; the record's stage is read
  // from GET /offers as after any decision.
  receivedWithoutAnswer(): null {
    return null;
  }

  async send(command: OutboxCommand, ctx: OutboxContext): Promise<Offer | null> {
    const payload = command.payload as DecideOfferPayload;
    await this.readLapse(payload, ctx);
    return (await ctx.cashOffer.decideOffer(payload.offerId, payload.decision, ctx.call)) ?? null;
  }

  // Our counter on the offer waits past its own expiry: at a service that lets counters lapse it
  // has, and only the listing tells (the next reconcile would read it). Decided first, the counter
  // would be taken as ended by the decision (a reject ends it, an accept's cascade too) and shown
  // `rejected` where the service says `expired` (readings sweep 1519). So in this one case the
  // request's offers are read first, as a reconcile reads them. Best effort: the decision goes out
  // whatever becomes of the read.
  private async readLapse(payload: DecideOfferPayload, ctx: OutboxContext): Promise<void> {
    const link = await this.links.find(ctx.brokerage.id, LINK.counter, String(payload.offerId));
    if (!link) return;
    const known = decodeCounterLink(link);
    if (isAnsweredCounter(known.status) || !ranOutBy(known.expiresMs, this.clock.nowMs())) return;
    try {
      await this.offers.refreshRequest(await ctx.crm(), ctx.cashOffer, payload.requestId);
    } catch (error) {
      this.logger.warn(
        `${ctx.brokerage.id}: offer ${payload.offerId}: could not read whether its counter lapsed before the ${VERB[payload.decision]}: ${errorMessage(error)}`,
      );
    }
  }

  // A reject the service carried out ends our counter on the offer, before the record is shown.
  async recordDone(command: OutboxCommand, _result: unknown, ctx: OutboxContext): Promise<void> {
    const payload = command.payload as DecideOfferPayload;
    if (payload.decision === 'rejected')
      await endCounterWithOffer(this.links, ctx.brokerage.id, payload.offerId);
  }

  async writeBack(command: OutboxCommand, result: unknown, ctx: OutboxContext): Promise<void> {
    const payload = command.payload as DecideOfferPayload;
    const status = (result as Partial<Offer> | null)?.offer_status;
    const concluded =
      payload.decision === 'rejected' && typeof status === 'string' && endedWithoutDecision(status);
    const crm = await ctx.crm();
    await this.outcome.show(crm, ctx.cashOffer, payload, {
      of: command,
      answers: requestOf(payload),
      message: null,
      concluded,
    });
    // An offer no longer listed is not shown by the read above: its record is moved on here.
    if (concluded) await this.unlisted.showOvertaken(crm, String(payload.offerId), requestOf(payload));
  }

  async onRefused(command: OutboxCommand, error: RemoteError, ctx: OutboxContext): Promise<void> {
    const payload = command.payload as DecideOfferPayload;
    const message = `The Cash Offer service did not ${VERB[payload.decision]} offer ${payload.offerId}: ${error.message}`;
    const crm = await ctx.crm();
    await this.outcome.show(crm, ctx.cashOffer, payload, {
      of: command,
      answers: requestOf(payload),
      message,
    });
    await this.unlisted.showOvertaken(crm, String(payload.offerId), requestOf(payload));
  }

  // PATCH /offers either changed the status or did not: the offer's status tells which.
  async reconcile(
    command: OutboxCommand,
    ctx: OutboxContext,
    cause?: ReconcileCause,
  ): Promise<OutboxReconciliation> {
    const payload = command.payload as DecideOfferPayload;
    const offers = await listAllOffers(ctx.cashOffer, payload.requestId);
    const offer = offers.find((o) => o.offer_id === payload.offerId);
    if (offer?.offer_status === payload.decision) {
      if (cause === 'lost-answer' && (await this.rejectUnseen(payload, offers, ctx)))
        return {
          found: false,
          provablyAbsent: true,
          hint: 'the service lists a countered offer as rejected, so its listing cannot show the reject',
        };
      // Refused where the service lists a countered offer `rejected` at once: read as done, as the
      // buyer's refusal of the counter (its UPDATE still on the way) leaves the offer so. A service
      // that decides only offers listed `active` refuses the reject too, and then the record shows
      // Counter rejected while the counter waits (a documented limit: the refusal reads the same).
      return { found: true, result: offer };
    }
    // A reject of an offer that ran out or that its buyer took back has nothing left to do: what the
    // agent wanted (no sale on it) holds, and the record shows the service's word without an error.
    if (offer && payload.decision === 'rejected' && endedWithoutDecision(offer.offer_status))
      return { found: true, result: offer };
    // One the service no longer lists, which a pass showed closed (it dropped off once it ran out, or
    // with our counter's lapse): whether a reject arrived or not, nothing is left to do; an accept
    // did not take effect (an accepted offer stays listed), and sent again, the service's refusal is
    // shown on the record. Before, its answer lost, either stayed unknown for good and the record in
    // its "requested" stage (full soak 20261265, on a service that drops expired offers).
    const closed = offer
      ? undefined
      : await this.unlisted.shownClosed(await ctx.crm(), String(payload.offerId));
    if (closed !== undefined && payload.decision === 'rejected')
      return {
        found: true,
        result: { offer_id: payload.offerId, offer_request_id: payload.requestId, offer_status: closed },
      };
    if (closed !== undefined)
      return {
        found: false,
        provablyAbsent: true,
        hint: `offer ${payload.offerId} is no longer listed and its record shows it ${closed}, so the accept did not take effect`,
      };
    if (offer && (offer.offer_status === 'active' || isCounteredWord(offer.offer_status)))
      return { found: false, provablyAbsent: true, hint: 'the offer is still undecided' };
    // Decided the other way (accepted where we rejected, closed without a sale where we accepted):
    // an accepted or rejected offer is never decided again, so ours did not take effect. Sent again,
    // the service's own refusal is shown on the record (before, the command stayed unknown for the
    // operator although the listing settled it: a full crash soak, seed 20261209).
    if (offer && decidedOtherwise(offer.offer_status, payload.decision))
      return {
        found: false,
        provablyAbsent: true,
        hint: `offer ${payload.offerId} is ${offer.offer_status}, so the ${VERB[payload.decision]} did not take effect`,
      };
    return {
      found: false,
      provablyAbsent: false,
      hint: `offer ${payload.offerId} is ${offer?.offer_status ?? 'not listed'}; check it in the service: ${unknownOutcomeChoices(command.id)}`,
    };
  }

  // A reject of an offer whose counter from us waits, where this service listed the offer `rejected`
  // as soon as it was countered: the listing reads the same whether the reject arrived (ending the
  // counter) or not (the counter still waiting on its buyer), unless another offer was accepted (the
  // cascade ended both). After a lost answer it is sent again: a second reject changes nothing or is
  // refused, and a refusal is then read as done (cause `refusal`). Taken as done, a reject cut before
  // it left would show Counter rejected while the buyer could still accept the counter.
  private async rejectUnseen(
    payload: DecideOfferPayload,
    offers: readonly Offer[],
    ctx: OutboxContext,
  ): Promise<boolean> {
    if (payload.decision !== 'rejected') return false;
    if (offers.some((o) => o.offer_id !== payload.offerId && o.offer_status === 'accepted')) return false;
    const link = await this.links.find(ctx.brokerage.id, LINK.counter, String(payload.offerId));
    if (!link) return false;
    const counter = decodeCounterLink(link);
    return !isAnsweredCounter(counter.status) && counter.listedAtSend === 'rejected';
  }
}

// The offer is listed decided, or closed, the other way from `decision`.
function decidedOtherwise(status: string, decision: DecideOfferPayload['decision']): boolean {
  return decision === 'accepted' ? closedWithoutSale(status) : status.toLowerCase() === 'accepted';
}

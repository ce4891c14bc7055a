import { Injectable, Logger } from '@nestjs/common';
import type { RemoteError } from '../../common/remote-error';
import type { CounterOffer, CounterOfferBody } from '../../cash-offer/schema';
import { CashOfferError, OPERATIONS } from '../../cash-offer';
import {
  DEFAULT_COUNTER_STATUS_WORD,
  counterStatusWordAsked,
  withFieldsFilled,
  withNamedFieldsFilled,
  withOfferTerms,
} from './counter-terms';
import {
  InboxRepository,
  LinkRepository,
  OutboxRepository,
  requestOrderingKey,
  type OutboxCommand,
} from '../../ledger';
import type { CounterUpdate } from '../../cash-offer/counter-update.reader';
import { LINK } from '../common/listing-deal.properties';
import { expiryMs, ranOutBy } from '../common/expiry';
import { Clock } from '../../common/clock';
import { DEFAULT_UNKNOWN_OUTCOME_WINDOW_MINUTES } from '../../config';
import { listAllOffers, readRequestOffers } from '../common/offer-pages';
import { OutboxExecutor } from '../outbox/outbox-executor.decorator';
import { unknownOutcomeChoices } from '../outbox/unknown-outcome.choices';
import type { CommandExecutor, OutboxContext, OutboxReconciliation } from '../outbox/outbox.executors';
import type { Offer } from '../../cash-offer/schema';
import {
  counterCrmId,
  counterProvablyAbsent,
  countersOfRequest,
  countersOutliveExpiry,
  decodeCounterLink,
  encodeCounterLink,
  listedAtSendOf,
  otherCountersOf,
  serviceMark,
} from '../offers/counter-link';
import { positiveId } from '../../cash-offer/positive-id';
import { counterListing, counterListingHabit } from '../offers/counter-listing-habit';
import { recentCounterUpdates } from '../offers/recent-counter-updates';
import {
  COUNTER_OFFER,
  DECIDE_OFFER,
  type DecideOfferPayload,
  type DecisionTarget,
  decisionDeadline,
  decisionOrderingKey,
  decisionKey,
} from './decision.command';
import { OfferRecordOutcome } from './offer-record.outcome';
import type { AgentRequest } from '../offers/agent-held-stage';
import { isAnsweredCounter, isCounteredWord, mayAnswerCounter } from '../offers/offer-record.view';

// What the agent asked for by moving the record to Counter requested.
const COUNTER_REQUEST: AgentRequest = { operation: COUNTER_OFFER };

export interface CounterOfferPayload extends DecisionTarget {
  body: CounterOfferBody;
}

// How a service that keeps an offer closed when its buyer refuses our counter lists it then.
const KEPT_CLOSED_WORDS = ['countered', 'rejected'] as const;

// Flow 6: POST /counter-offers from the counter fields of an offer record, then the record shows
// the counter (countered, counter id and status).
@Injectable()
@OutboxExecutor(COUNTER_OFFER)
export class CounterOfferExecutor implements CommandExecutor {
  // A 400/422 on an offer already decided this way (or already countered) is read as done.
  readonly refusalsReconciled = true;
  private readonly logger = new Logger(CounterOfferExecutor.name);

  // Of no use once the offer has run out: sent ahead of the drain's backlog (send-order.ts).
  deadline(command: OutboxCommand): number | undefined {
    return decisionDeadline(command);
  }

  orderingKey(command: OutboxCommand): string {
    return decisionOrderingKey(command);
  }

  constructor(
    private readonly outcome: OfferRecordOutcome,
    private readonly links: LinkRepository,
    private readonly clock: Clock,
    private readonly inbox: InboxRepository,
    private readonly outbox: OutboxRepository,
  ) {}

  // Confirmed received by the operator (the drain's confirmedReceived): a counter answered with no
  // body, linked by its offer and named by the buyer's answer, as a 204 is; with the expiry the send
  // filled in where this service requires one, as one found by the reconcile keeps it.
  async receivedWithoutAnswer(command: OutboxCommand, ctx: OutboxContext): Promise<CounterAnswer> {
    return this.expirySentWith(ctx, command.payload as CounterOfferPayload, undefined);
  }

  async send(command: OutboxCommand, ctx: OutboxContext): Promise<CounterAnswer> {
    const payload = command.payload as CounterOfferPayload;
    this.refuseIfRunOut(payload.body);
    const offer = await this.counteredOffer(ctx, payload);
    const {
      answer: counter,
      required,
      statusWord,
      sent,
      postedAtMs,
    } = await this.post(ctx, withOfferTerms(payload.body, offer), offer);
    const answer: CounterAnswer = {
      counter_offer_id: counter?.counter_offer_id,
      counter_offer_status: counter?.counter_offer_status,
      ...(required.length > 0 ? { required_fields: required } : {}),
      ...(statusWord !== undefined ? { status_word: statusWord } : {}),
      // An expiry filled in for the agent (a service that requires one): the counter's real one.
      ...(sent.counter_offer_expires !== payload.body.counter_offer_expires &&
      typeof sent.counter_offer_expires === 'string'
        ? { expires_sent: sent.counter_offer_expires }
        : {}),
    };
    // Kept before the read below and the ledger's writes: a service that lists a countered offer as
    // `active` and names no counter on it shows nothing a reconcile could find the counter by, and
    // a worker killed in that read left the counter unknown, its record in Counter requested, until
    // the buyer answered (readings sweep 1632 run 2).
    await ctx.keepAnswer?.(answer);
    // How the service lists the offer the moment after the counter: one read, best effort (the
    // write-back reads it again when this one fails).
    const listedAtSend = await this.listedAtSend(
      ctx,
      payload,
      expiryMs(sent.counter_offer_expires),
      postedAtMs,
    ).catch(() => undefined);
    return { ...answer, ...(listedAtSend !== undefined ? { listed_at_send: listedAtSend } : {}) };
  }

  // A counter whose own expiry passed while it waited to be sent (the daemon down, the service
  // unreachable) is not sent: no buyer could accept it, and a service that lets counters lapse would
  // end it on arrival with nothing to tell the agent. Refused here, before any request and again
  // before each POST (the offer's read, a refused try and the rate limit take seconds: a 200-kill
  // soak sent one 4 s past its expiry, which the service ended on arrival), the record says why.
  private refuseIfRunOut(counter: CounterOfferBody): void {
    const expires = expiryMs(counter.counter_offer_expires);
    // No expiry, no clock to read.
    if (expires === null || !ranOutBy(expires, this.clock.nowMs())) return;
    throw CashOfferError.invalidRecord(OPERATIONS.counterOffer.name, [
      {
        field: 'counter_offer_expires',
        message: `counter_offer_expires ${new Date(expires).toISOString()} passed before the counter could be sent; nothing was sent`,
      },
    ]);
  }

  // The countered offer as the service lists it now: its terms stand for those the agent left empty
  // (counter-terms.ts). A read the service may answer later is waited for (nothing is sent meanwhile);
  // one it refuses (a 4xx) leaves the counter to go as the agent filled it.
  private async counteredOffer(ctx: OutboxContext, payload: CounterOfferPayload): Promise<Offer | undefined> {
    try {
      return (await listAllOffers(ctx.cashOffer, payload.requestId)).find(
        (o) => o.offer_id === payload.offerId,
      );
    } catch (error) {
      if (
        error instanceof CashOfferError &&
        !error.retryable &&
        error.code !== 'OUTCOME_UNKNOWN' &&
        !error.keyRefused
      )
        return undefined;
      throw error;
    }
  }

  // What each brokerage's service has required of a counter, learnt from its refusals and kept in
  // the done counters' results (so a restart keeps them): the fields, and the status word where it
  // named one. Later counters carry them the first time, one request rather than a refusal and a
  // second one, which a kill could fall between.
  private readonly learnt = new Map<string, Promise<LearntRequirements>>();

  private learntOf(brokerageId: string): Promise<LearntRequirements> {
    let learnt = this.learnt.get(brokerageId);
    if (!learnt) {
      learnt = this.outbox
        .latestDone(brokerageId, COUNTER_OFFER, LEARNT_FROM_LATEST)
        .then((done) => {
          const answers = done.map((c) => (c.result ?? {}) as CounterAnswer);
          return {
            fields: new Set(answers.flatMap((a) => a.required_fields ?? [])),
            statusWord: answers.find((a) => typeof a.status_word === 'string')?.status_word,
          };
        })
        .catch(() => {
          // Looked up again by the next counter; this one goes as the agent left it.
          this.learnt.delete(brokerageId);
          return { fields: new Set<string>() };
        });
      this.learnt.set(brokerageId, learnt);
    }
    return learnt;
  }

  // A refusal naming counter fields the body left out is answered in the same attempt with them
  // filled, and one refusing the status word sent for it with the word it asks for: a refused
  // counter did nothing, so sending it again cannot make a second one.
  private async post(
    ctx: OutboxContext,
    counter: CounterOfferBody,
    offer: Offer | undefined,
  ): Promise<{
    answer: CounterOffer | undefined;
    required: string[];
    statusWord?: string;
    sent: CounterOfferBody;
    postedAtMs: number;
  }> {
    const known = await this.learntOf(ctx.brokerage.id);
    let statusWord = known.statusWord ?? DEFAULT_COUNTER_STATUS_WORD;
    let body = withFieldsFilled(counter, offer, [...known.fields], statusWord)?.body ?? counter;
    const required = new Set(known.fields);
    for (let refusals = 0; ; refusals++) {
      // The agent's own expiry (one filled in from the offer is the offer's clock, not the counter's).
      this.refuseIfRunOut(counter);
      try {
        const postedAtMs = this.clock.nowMs();
        const answer = await ctx.cashOffer.counterOffer(body, ctx.call);
        const learnt = { fields: required, statusWord: asked(statusWord) ?? known.statusWord };
        this.learnt.set(ctx.brokerage.id, Promise.resolve(learnt));
        return { answer, required: [...required], statusWord: learnt.statusWord, sent: body, postedAtMs };
      } catch (error) {
        if (
          !(error instanceof CashOfferError) ||
          error.code !== 'INVALID_RECORD' ||
          error.keyRefused ||
          refusals >= MAX_REFUSALS_ANSWERED
        )
          throw error;
        const message = error.serviceError?.message ?? error.message;
        const word = counterStatusWordAsked(body, message);
        const again =
          word === undefined ? withNamedFieldsFilled(body, offer, message, statusWord) : undefined;
        if (word !== undefined) {
          statusWord = word;
          body = { ...body, counter_offer_status: word };
          this.logger.log(
            `The service asks a counter's counter_offer_status to be "${word}"; counter on offer ${body.offer_id} sent again with it`,
          );
        } else if (again) {
          again.filled.forEach((field) => required.add(field));
          body = again.body;
          this.logger.log(
            `The service requires counter fields the agent left empty (${again.filled.join(', ')}); counter on offer ${body.offer_id} sent again with them filled from the offer`,
          );
        } else throw error;
        await ctx.call?.refusedBeforeRetry?.(error.message);
      }
    }
  }

  // A listing read once the counter may have run out (a service that lets counters lapse reopens
  // the offer) shows the lapse, not how this service lists a waiting countered offer: nothing is
  // learnt from it (a targeted soak learnt `active` so and took a later counter's `rejected`
  // listing for its buyer's refusal).
  // A read that came back more than SEND_READ_IN_TIME_MS after the POST went out (a slow gateway, a
  // rate limit) is late as the write-back's is: the buyer may have answered in between (readings
  // sweep 1601 run 1's replay: the POST's answer held 11 s, the buyer refused meanwhile, the read
  // showed the offer back to `active`, and with no UPDATE the record stayed Countered for good).
  private async listedAtSend(
    ctx: OutboxContext,
    payload: CounterOfferPayload,
    expiresMs: number | null,
    postedAtMs: number,
  ): Promise<string | undefined> {
    if (expiresMs !== null && ranOutBy(expiresMs, this.clock.nowMs())) return undefined;
    const offers = await listAllOffers(ctx.cashOffer, payload.requestId);
    const listed = offers.find((o) => o.offer_id === payload.offerId);
    if (!listed) return undefined;
    // Only an `active` read can be late (listedAtSendOf): the service's habit is read for it alone.
    const late =
      listed.offer_status === 'active' &&
      (this.clock.nowMs() - postedAtMs > SEND_READ_IN_TIME_MS ||
        (await this.sameServiceHabit(ctx)) === 'countered');
    return this.listedAtSendOf(ctx, listed.offer_status, late);
  }

  // How the offer was listed at the send, from a read of it now, weighed against the brokerage's
  // other counters (listedAtSendOf).
  private async listedAtSendOf(ctx: OutboxContext, listedNow: string, late: boolean): Promise<string> {
    const { habit, refusedListedAs } = await counterListing(this.links, ctx.brokerage.id, LISTING_READINGS);
    return listedAtSendOf(listedNow, habit, late, refusedListedAs);
  }

  // How the counters sent to this same service were listed while they waited. Where that was
  // `countered`, an `active` read right after a counter it took (2xx) is the offer back on the
  // market: its buyer refused already (readings sweep 1601 run 1's replay, again: a bot buyer
  // refused 0.5 s after the POST, and with no UPDATE the record stayed Countered).
  private sameServiceHabit(ctx: OutboxContext): Promise<string | undefined> {
    return counterListingHabit(this.links, ctx.brokerage.id, LISTING_READINGS, serviceOf(ctx));
  }

  // The counter's link, written before the command is marked done: the buyer's answer (an UPDATE
  // naming the counter or the countered offer) may arrive within a second, and must find it even
  // while the CRM write-back waits on a CRM that is down.
  async recordDone(command: OutboxCommand, result: unknown, ctx: OutboxContext): Promise<void> {
    const payload = command.payload as CounterOfferPayload;
    const counter = (result ?? {}) as CounterAnswer;
    // A buyer's answer may have arrived first; never move the counter's status back to pending.
    if (await this.links.find(ctx.brokerage.id, LINK.counter, String(payload.offerId))) return;
    await this.writeLink(ctx.brokerage.id, payload, {
      id: positiveId(counter.counter_offer_id),
      status: counter.counter_offer_status ?? 'pending',
      listedAtSend: counter.listed_at_send,
      expires: counter.expires_sent,
      service: serviceOf(ctx),
    });
  }

  async writeBack(command: OutboxCommand, result: unknown, ctx: OutboxContext): Promise<void> {
    const payload = command.payload as CounterOfferPayload;
    // Read once: for how the offer is listed right after the counter, then to show the outcome.
    const read = await readRequestOffers(ctx.cashOffer, this.clock, payload.requestId);
    const { offers } = read;
    const known = await this.links.find(ctx.brokerage.id, LINK.counter, String(payload.offerId));
    if (!known) {
      // A command marked done before recordDone existed (a ledger from an earlier version).
      await this.recordDone(command, result, ctx);
      return this.writeBack(command, result, ctx);
    }
    const link = decodeCounterLink(known);
    // How the service lists the offer right after the counter: a service that lists countered
    // offers as rejected says nothing about the buyer's answer by listing it so later. A counter
    // found by reconcile carries it already: how this service lists a countered offer, not the
    // status the offer has reached since.
    const listed = offers.find((o) => o.offer_id === payload.offerId);
    // Read after the buyer's answer is known (an UPDATE, or a status in the answer), the listing
    // shows that answer, not how this service lists a waiting countered offer: learnt as the habit,
    // a refusal read `rejected` made a later counter's `active` offer look never countered, and that
    // counter was sent again (readings sweep 1427, run 3). Only `countered` is unambiguous.
    const answeredFirst = isAnsweredCounter(link.status) && !isCounteredWord(listed?.offer_status);
    const ranOut = ranOutBy(link.expiresMs, (read.answeredAt ?? read.readAt).getTime());
    // Found by a reconcile from a listing that may be a waiting counter or a refused one: left for
    // the brokerage's other counters to settle (counterVerdict).
    const unsettled = (result as CounterAnswer | null)?.listing_unsettled === true;
    if (link.listedAtSend === undefined && listed && !answeredFirst && !ranOut && !unsettled) {
      const listedAtSend = await this.listedAtSendOf(ctx, listed.offer_status, true);
      await this.links.replaceContent(
        ctx.brokerage.id,
        LINK.counter,
        known.remoteId,
        known.contentHash,
        encodeCounterLink({
          ...link,
          requestId: link.requestId ?? payload.requestId,
          listedAtSend,
        }),
      );
    }
    await this.outcome.show(await ctx.crm(), ctx.cashOffer, payload, {
      of: command,
      answers: COUNTER_REQUEST,
      message: null,
      listed: read,
    });
  }

  private async writeLink(
    brokerageId: string,
    payload: CounterOfferPayload,
    counter: {
      id?: number | string;
      status: string;
      listedAtSend?: string;
      expires?: string;
      service: string;
    },
  ): Promise<void> {
    await this.links.upsertLinks(brokerageId, LINK.counter, [
      {
        remoteId: String(payload.offerId),
        crmId: counterCrmId(
          String(payload.offerId),
          counter.id === undefined ? undefined : String(counter.id),
        ),
        contentHash: encodeCounterLink({
          status: counter.status,
          requestId: payload.requestId,
          amount: payload.body.counter_offer_amount,
          expiresMs: expiryMs(counter.expires ?? payload.body.counter_offer_expires),
          knownSinceMs: this.clock.nowMs(),
          ...(counter.listedAtSend !== undefined ? { listedAtSend: counter.listedAtSend } : {}),
          service: counter.service,
        }),
      },
    ]);
    // A buyer's answer (an UPDATE) that waited for this link is applied at the inbox's next pass,
    // whether it named the request or only the offer (no ordering key).
    await this.inbox.retryWaitingNow(brokerageId, requestOrderingKey(payload.requestId));
    await this.inbox.retryWaitingNow(brokerageId, null);
  }

  async onRefused(command: OutboxCommand, error: RemoteError, ctx: OutboxContext): Promise<void> {
    const payload = command.payload as CounterOfferPayload;
    // A refusal with no status is the daemon's own, before any request (refuseIfRunOut, the body's
    // check against the spec).
    const message =
      error.status === undefined
        ? `The counter on offer ${payload.offerId} was not sent: ${error.message}`
        : `The Cash Offer service refused the counter on offer ${payload.offerId}: ${error.message}`;
    await this.outcome.show(await ctx.crm(), ctx.cashOffer, payload, {
      of: command,
      answers: COUNTER_REQUEST,
      message,
    });
  }

  // The expiry a counter found after its answer was lost went with, where the agent gave none and
  // this service requires one: the send filled in the offer's (counter-terms.ts), and an answered
  // counter keeps it (expires_sent), so that its lapse is told from its buyer's refusal. A 200-kill
  // soak (seed 20261241) showed such a counter, lapsed with its offer, as refused: its link had no
  // expiry. Where the service does not require one, the counter went without.
  private async expirySentWith(
    ctx: OutboxContext,
    payload: CounterOfferPayload,
    offer: Offer | undefined,
  ): Promise<Pick<CounterAnswer, 'expires_sent'>> {
    if (payload.body.counter_offer_expires !== undefined) return {};
    if (!(await this.learntOf(ctx.brokerage.id)).fields.has('counter_offer_expires')) return {};
    const expires = offer?.offer_expires ?? payload.expiresAt;
    return typeof expires === 'string' ? { expires_sent: expires } : {};
  }

  // The service has no counter lookup: the countered offer and its request's other offers tell.
  // Found: the offer is countered, the buyer made an offer by accepting a counter on this request,
  // or the offer left `active` with no other offer accepted (only our counter moves it: an agent
  // makes one decision per offer). Provably absent only where the offer is `active` and this service
  // lists countered offers otherwise (`countered`, or `rejected` at once; seen on another offer), and
  // it has not been seen putting an offer back to `active` on a refusal (counterProvablyAbsent).
  async reconcile(command: OutboxCommand, ctx: OutboxContext): Promise<OutboxReconciliation> {
    const payload = command.payload as CounterOfferPayload;
    const offers = await listAllOffers(ctx.cashOffer, payload.requestId);
    const offer = offers.find((o) => o.offer_id === payload.offerId);
    const others = await this.otherCounterIds(ctx.brokerage.id, payload);
    const habit = await this.listingHabit(ctx.brokerage.id);
    const verdict = counterVerdict(payload.offerId, offers, others, {
      amount: payload.body.counter_offer_amount,
      habit,
    });
    const found = async (result: CounterAnswer): Promise<OutboxReconciliation> => ({
      found: true,
      result: { ...result, ...(await this.expirySentWith(ctx, payload, offer)) },
    });
    if (verdict.found) return found(verdict.result);
    const updates = await recentCounterUpdates(this.inbox, ctx.brokerage.id);
    const answered = answeredCounterOf(payload, updates, others);
    if (answered) return found(answered);
    if (verdict.moot) {
      // Sent before the service accepted the other offer: the counter was there, and the cascade
      // rejected it with "every other offer and counter offer" (soak sweep 1456: sent again, it was
      // refused 409 and the record showed the refusal of a counter the service held, rejected).
      if (
        sentBeforeAcceptance(
          offers,
          payload.offerId,
          command.sentAt,
          await this.ourAcceptSentAt(command, offers),
        )
      )
        return found({ counter_offer_status: 'rejected' });
      return { found: false, provablyAbsent: true, hint: 'another offer on the request was accepted' };
    }
    const waitingSeenAbsentAt = counterWaitingSeenAbsentAt(command, offer, habit, this.clock.nowMs());
    const seen = waitingSeenAbsentAt === undefined ? {} : { note: { waitingSeenAbsentAt } };
    if (waitingSeenAbsentAt === undefined && (await this.lapsedSinceSend(command, offer, habit)))
      return found({ counter_offer_status: 'expired' });
    // Only an active offer on a service that lists countered offers otherwise can prove anything.
    const afterRefusal =
      offer?.offer_status === 'active' && (habit === 'countered' || habit === 'rejected')
        ? await this.listedAfterRefusal(ctx, payload, offers, updates)
        : 'kept-closed';
    // A service not yet seen answering a refusal may put the offer back to active too.
    const reopens = afterRefusal !== 'kept-closed';
    const windowMinutes =
      ctx.brokerage.config.cashOffer.unknownOutcomeWindowMinutes ?? DEFAULT_UNKNOWN_OUTCOME_WINDOW_MINUTES;
    const updateDueBy = (command.sentAt ?? command.updatedAt).getTime() + windowMinutes * 60_000;
    // No UPDATE within the window proves nothing on a service never seen sending one for a refusal
    // (readings sweep 1576 run 3, a service that sends none: the counter was sent twice).
    const updatesCome = updates.length > 0;
    const silenceProves = updatesCome && this.clock.nowMs() >= updateDueBy;
    if (counterProvablyAbsent(offer?.offer_status, habit, reopens, silenceProves))
      return {
        found: false,
        provablyAbsent: true,
        hint: reopens
          ? `the offer is not countered, and no UPDATE named it within ${windowMinutes} minutes of the send`
          : 'the offer is not countered',
      };
    if (reopens)
      return {
        found: false,
        provablyAbsent: false,
        ...seen,
        hint:
          `offer ${payload.offerId} is active: ` +
          (afterRefusal === 'reopens'
            ? 'this service puts an offer back to active when its buyer refuses a counter'
            : 'this brokerage has not yet seen how the service lists an offer whose buyer refused a counter (it may put it back to active)') +
          (updatesCome
            ? `, so the counter may have arrived and been refused; without an UPDATE naming it, it is sent again from ${new Date(updateDueBy).toISOString()}`
            : `, so the counter may have arrived and been refused, and this service has sent no UPDATE for a refusal yet; check its counter offers in the service: ${unknownOutcomeChoices(command.id)}`),
      };
    return {
      found: false,
      provablyAbsent: false,
      ...seen,
      hint: `offer ${payload.offerId} is ${offer?.offer_status ?? 'not listed'}; check its counter offers in the service: ${unknownOutcomeChoices(command.id)}`,
    };
  }

  // When this daemon's accept of the offer the service lists accepted on the request left, where that
  // accept is done: the service accepted it no earlier (sentBeforeAcceptance).
  private async ourAcceptSentAt(command: OutboxCommand, offers: readonly Offer[]): Promise<Date | null> {
    const offerId = (command.payload as CounterOfferPayload).offerId;
    const accepted = offers.find((o) => o.offer_id !== offerId && o.offer_status === 'accepted');
    if (!accepted) return null;
    const accept = await this.outbox.findByKey(
      decisionKey(command.brokerageId, accepted.offer_id, DECIDE_OFFER),
    );
    const decision = (accept?.payload as DecideOfferPayload | undefined)?.decision;
    return accept?.state === 'done' && decision === 'accepted' ? accept.sentAt : null;
  }

  // A counter whose answer was lost, on an offer listed `active` again once the counter's own expiry
  // has passed, where a waiting countered offer is listed otherwise: the listing reads the same
  // whether the counter never arrived or arrived and lapsed (a service that reopens an offer whose
  // counter ran out). A command is `sending` only once its request is about to leave, so a lost
  // answer is almost always a counter that arrived; it is taken as arrived and lapsed, unless this
  // service is known to let no counter lapse. Before, the `active` listing was taken for proof of
  // absence, the counter was sent again, refused as run out, and the record said it was never sent
  // while the service held it, expired (a replay of readings sweep 1519, run 2).
  // Likewise an offer listed `expired` well before its own `offer_expires`, after the counter's
  // expiry: nothing but the counter's lapse ends an offer early (a service that lets an unanswered
  // counter run out with its offer), so the counter arrived (readings sweep 1541 run 1: the record
  // kept Counter requested with "check its counter offers in the service", the service holding the
  // counter, expired). And an offer no longer listed at all while its own expiry, as the agent's
  // record showed it, is well ahead: a service that drops an expired offer from GET /offers drops the
  // one the lapse ended (targeted soak 1548001: the record kept Counter requested, the command
  // unknown). And an offer that ran out on its own clock (ranOutWithItsOffer).
  private async lapsedSinceSend(
    command: OutboxCommand,
    offer: Offer | undefined,
    habit: string | undefined,
  ): Promise<boolean> {
    const payload = command.payload as CounterOfferPayload;
    const expires = expiryMs(payload.body.counter_offer_expires);
    const now = this.clock.nowMs();
    if (ranOutWithItsOffer(offer, now, payload.expiresAt)) return true;
    const reopened = offer?.offer_status === 'active' && (habit === 'countered' || habit === 'rejected');
    if (!reopened && !endedBeforeItsOwnExpiry(offer, now, payload.expiresAt)) return false;
    if (expires === null || !ranOutBy(expires, now)) return false;
    return !(await countersOutliveExpiry(this.links, command.brokerageId));
  }

  // How this service lists an offer whose buyer refused a counter, as far as the ledger has seen:
  // put back to `active` (`reopens`), kept out of it (`kept-closed`), or not seen yet (`unknown`,
  // which may be either: readings sweep 1421 run 6 sent a counter twice when the first refusal of
  // the run, made while the daemon was down, reopened its offer before any was seen). Seen in a
  // refusal the ledger linked (its counter link's `f`: the offer's status read after it), or, before
  // any is linked, in a buyer's refusal (an UPDATE) in the inbox naming an offer the service now
  // lists (readings sweep 1410, run 2: that refusal still waited for its own counter's link). A few
  // of those requests' offers are read, in the rare case that needs them: a counter whose answer was
  // lost, on an offer now listed active.
  private async listedAfterRefusal(
    ctx: OutboxContext,
    payload: CounterOfferPayload,
    offers: readonly Offer[],
    updates: readonly CounterUpdate[],
  ): Promise<'reopens' | 'kept-closed' | 'unknown'> {
    const brokerageId = ctx.brokerage.id;
    if ((await this.links.countByContent(brokerageId, LINK.counter, '"f":"active"')) > 0) return 'reopens';
    // Kept closed: listed as countered or rejected right after its buyer refused. An offer read as
    // accepted, expired or withdrawn after the refusal was decided since, which says nothing of how
    // the service lists a refused one (readings sweep 1601 run 1 took an `accepted` for it, and sent
    // a counter twice on a service that reopens).
    let keptClosed = false;
    for (const word of KEPT_CLOSED_WORDS)
      if ((await this.links.countByContent(brokerageId, LINK.counter, `"f":"${word}"`)) > 0)
        keptClosed = true;
    const listed = new Map<number, readonly Offer[]>([[payload.requestId, offers]]);
    const listedAs = (offerId: number) =>
      [...listed.values()]
        .flatMap((list) => list.filter((o) => o.offer_id === offerId))
        .map((o) => o.offer_status);
    for (const refusal of refusedOffersNamed(updates, payload.offerId)) {
      // An UPDATE naming no request (`offer-only`) is looked for among the offers already read.
      if (refusal.requestId !== undefined && !listed.has(refusal.requestId)) {
        if (listed.size > REOPENING_REQUESTS_READ) continue;
        listed.set(refusal.requestId, await listAllOffers(ctx.cashOffer, refusal.requestId));
      }
      const statuses = listedAs(refusal.offerId);
      if (statuses.includes('active')) return 'reopens';
      if (statuses.some((status) => (KEPT_CLOSED_WORDS as readonly string[]).includes(status)))
        keptClosed = true;
    }
    return keptClosed ? 'kept-closed' : 'unknown';
  }

  // The buyers' answers to counters (UPDATE callbacks) this brokerage's webhook URL received, newest
  // first, whatever became of them (one waits while our counter's outcome is unknown).
  private async otherCounterIds(brokerageId: string, payload: CounterOfferPayload): Promise<Set<string>> {
    const links = await this.links.findByContent(brokerageId, LINK.counter, `"r":${payload.requestId}`);
    return otherCountersOf(countersOfRequest(links, payload.requestId), String(payload.offerId)).ids;
  }

  // How this brokerage's service lists an offer right after it was countered (`countered`, `active`
  // or `rejected`), as seen on the counters it answered; undefined before the first.
  private listingHabit(brokerageId: string): Promise<string | undefined> {
    return counterListingHabit(this.links, brokerageId, LISTING_READINGS);
  }
}

// The listings a countered offer may have while its counter waits.
const LISTING_READINGS = ['countered', 'active', 'rejected'];

function serviceOf(ctx: OutboxContext): string {
  return serviceMark(ctx.brokerage.config.cashOffer.baseUrl);
}

// How soon after the POST went out the send's own listing read must come back to show the offer
// before any buyer could answer: a person answers a counter in minutes, not seconds.
export const SEND_READ_IN_TIME_MS = 3_000;

// How many other requests' offers a counter's reconcile reads to see whether refused offers reopen.
const REOPENING_REQUESTS_READ = 3;

// The offers other than `offerId` whose buyers refused a counter (an UPDATE naming the offer, and
// its request where it says), newest first, each once. An UPDATE with another status (a service
// that also tells of acceptances this way) is not a refusal.
export function refusedOffersNamed(
  updates: readonly CounterUpdate[],
  offerId: number,
): { offerId: number; requestId?: number }[] {
  const seen = new Set<number>();
  return updates.flatMap((u) => {
    if (u.offerId === undefined || u.offerId === offerId || seen.has(u.offerId)) return [];
    if (u.status !== undefined && u.status !== 'rejected') return [];
    seen.add(u.offerId);
    return [{ offerId: u.offerId, ...(u.requestId !== undefined ? { requestId: u.requestId } : {}) }];
  });
}

// The buyer's answer to our counter, received while our send's own answer was lost: the service's
// word that the counter arrived. Seen in a crash soak: the kill cut the answer, the buyer refused
// the counter, another offer was then accepted (the listing could no longer tell a counter was
// made), and the counter sent again was refused as on a rejected offer: the agent saw their counter
// refused, not refused by the buyer. An answer naming the offer is ours; one naming only the
// request (the spec shows no payload) is ours when its counter id is linked to no other offer.
export function answeredCounterOf(
  payload: Pick<CounterOfferPayload, 'offerId' | 'requestId'>,
  updates: readonly CounterUpdate[],
  otherCounterIds: ReadonlySet<string>,
): CounterAnswer | undefined {
  const ours = updates.find((u) =>
    u.offerId !== undefined
      ? u.offerId === payload.offerId
      : u.requestId === payload.requestId &&
        u.counterId !== undefined &&
        !otherCounterIds.has(String(u.counterId)),
  );
  if (!ours) return undefined;
  return {
    ...(ours.counterId !== undefined ? { counter_offer_id: ours.counterId } : {}),
    counter_offer_status: ours.status ?? 'rejected',
  };
}

export interface CounterAnswer {
  counter_offer_id?: number;
  counter_offer_status?: string;
  // Set by reconcile: how the service lists a countered offer (see listingHabit).
  listed_at_send?: string;
  // Set by reconcile: found from a `rejected` listing before any counter showed how this service
  // lists a waiting one, so that listing is not learnt as the habit (counterVerdict).
  listing_unsettled?: boolean;
  // Every field this brokerage's service is known to require of a counter (see post).
  required_fields?: string[];
  // The counter_offer_status word the service asked for when it refused another (see post).
  status_word?: string;
  // The counter_offer_expires sent where the agent left it empty and the service required one (the
  // offer's own, counter-terms.ts): when the counter runs out, for its clocks and its lapse.
  expires_sent?: string;
}

interface LearntRequirements {
  fields: ReadonlySet<string>;
  statusWord?: string;
}

// Refusals one send answers (fields filled, then a status word asked for) before the refusal stands.
const MAX_REFUSALS_ANSWERED = 2;

// A status word worth keeping: one the service asked for, not the default sent unasked.
function asked(word: string): string | undefined {
  return word === DEFAULT_COUNTER_STATUS_WORD ? undefined : word;
}

// How many of a brokerage's latest done counters the required fields are learnt from at start.
const LEARNT_FROM_LATEST = 20;

// How far ahead of its own `offer_expires` an offer must be listed expired to have ended early: the
// two clocks, the service's and ours, need not agree to the second.
const ENDED_EARLY_BY_MS = 60_000;

// An offer listed `expired` while its own expiry is still well ahead; or, not listed at all, while
// its own expiry as last known (`knownExpires`: the agent's record when the counter was asked for)
// is: the spec shows no status beyond active, accepted and rejected, so a service may drop an offer
// that ended from the list rather than list it expired.
export function endedBeforeItsOwnExpiry(
  offer: Offer | undefined,
  atMs: number,
  knownExpires?: string | null,
): boolean {
  if (offer !== undefined && offer.offer_status.toLowerCase() !== 'expired') return false;
  const own = expiryMs(offer ? offer.offer_expires : knownExpires);
  return own !== null && own - atMs > ENDED_EARLY_BY_MS;
}

// An offer listed `expired`, or no longer listed, past its own expiry (as listed; or as last known,
// `knownExpires`): a counter on it ended with it, whether or not it arrived (the record shows a
// counter on an expired offer ended so, offerRecordView), and one sent now would be refused. Where
// the counter's expiry is the offer's own (the daemon fills it in for a service that requires one),
// the listing reads the same either way (full soak 20261246: the command stayed unknown, the record
// Counter requested, the service holding the counter, expired with its offer).
export function ranOutWithItsOffer(
  offer: Offer | undefined,
  atMs: number,
  knownExpires?: string | null,
): boolean {
  if (offer !== undefined && offer.offer_status.toLowerCase() !== 'expired') return false;
  return ranOutBy(expiryMs(offer ? offer.offer_expires : knownExpires), atMs);
}

// What a look at a counter whose answer was lost leaves for the next look (the command's result
// until it is answered): when it found the counter not waiting at the service.
interface CounterLookNote {
  waitingSeenAbsentAt?: number;
}

// When a look found that a counter whose answer was lost was not waiting at the service: the offer
// listed `active`, after the send and well before the counter's own expiry, where this service lists
// a waiting countered offer otherwise (`habit`). Then the counter never arrived or was already
// answered, so it cannot lapse later, and an `active` or ended offer past its expiry is no lapse.
// Kept from an earlier look (`command.result`) or taken from this one (`offer` read by `nowMs`).
// Readings sweep 1550 run 2: a worker killed before the request left; the look 3 s later saw the
// offer active but waited for a refusal's UPDATE, and past the counter's 13-second expiry the same
// listing was read as a lapse: the record showed the counter sent and lapsed, never having left.
export function counterWaitingSeenAbsentAt(
  command: Pick<OutboxCommand, 'payload' | 'result' | 'sentAt'>,
  offer: Offer | undefined,
  habit: string | undefined,
  nowMs: number,
): number | undefined {
  if (!command.sentAt) return undefined;
  const sentMs = command.sentAt.getTime();
  const noted = (command.result as CounterLookNote | null | undefined)?.waitingSeenAbsentAt;
  // A note from before a later send (a replay) says nothing of this one.
  if (typeof noted === 'number' && noted > sentMs) return noted;
  if (offer?.offer_status !== 'active' || (habit !== 'countered' && habit !== 'rejected')) return undefined;
  const expires = expiryMs((command.payload as CounterOfferPayload).body.counter_offer_expires);
  if (expires === null) return undefined;
  return nowMs + clockMarginMs(expires - sentMs) < expires ? nowMs : undefined;
}

// How far before a counter's expiry a look must be to count as before it by the service's clock: a
// minute, or a quarter of the counter's life where that is shorter (a counter meant to last seconds).
function clockMarginMs(lifeMs: number): number {
  return Math.min(ENDED_EARLY_BY_MS, Math.max(0, lifeMs) / 4);
}

// Whether a counter whose answer was lost left before the service accepted another offer on the
// request: then it reached the service, and the cascade rejected it. The acceptance came no earlier
// than the accepted offer's `offer_decided_at`; where the service keeps no decision time (null),
// no earlier than the offer was made (a buyer who accepts a counter makes a new offer, accepted at
// once; any other is accepted after it was made), nor than this daemon's own accept of it left
// (`acceptSentAt`: the send of the decide command that made it accepted). Unknown (false) where no
// time tells; a send after it was refused. Readings sweep 1541 run 2: under a service with no
// decision times, a counter sent 4 s before a buyer accepted another counter was sent again and
// shown refused, where the service held it, rejected by the cascade.
export function sentBeforeAcceptance(
  offers: readonly Offer[],
  offerId: number,
  sentAt: Date | null | undefined,
  acceptSentAt?: Date | null,
): boolean {
  if (!sentAt) return false;
  const accepted = offers.find((o) => o.offer_id !== offerId && o.offer_status === 'accepted');
  if (!accepted) return false;
  const decidedMs = Date.parse(accepted.offer_decided_at ?? '');
  if (Number.isFinite(decidedMs)) return sentAt.getTime() < decidedMs;
  const acceptedNoEarlierThan = [Date.parse(accepted.created_at ?? ''), acceptSentAt?.getTime() ?? NaN];
  return acceptedNoEarlierThan.some((ms) => Number.isFinite(ms) && sentAt.getTime() < ms);
}

// What the request's offers say of a counter on `offerId` (pure, see reconcile). The service has no
// counter lookup, so: the offer is countered; or the buyer made an offer by accepting a counter on
// the request (of our counter's amount, and no counter the ledger links to another offer); or the
// offer is rejected with no other offer accepted (only our counter moved it: an agent makes one
// decision per offer) — then the buyer refused it, unless this service lists countered offers as
// rejected from the start. `moot`: another offer was accepted, so a counter now would be refused
// whether or not ours arrived: sending it again gets the agent the service's own answer.
export function counterVerdict(
  offerId: number,
  offers: readonly Offer[],
  otherCounterIds: ReadonlySet<string> = new Set(),
  context: { amount?: number; habit?: string } = {},
): { found: true; result: CounterAnswer } | { found: false; moot: boolean } {
  const offer = offers.find((o) => o.offer_id === offerId);
  if (!offer) return { found: false, moot: false };
  const habit = context.habit !== undefined ? { listed_at_send: context.habit } : {};
  // Listed `countered` now: this service's own word for a countered offer, whatever the habit read
  // on earlier counters (one taken after a buyer's answer may say `rejected`): a refused counter
  // that puts the offer back to active is then seen by the record (offerRecordView).
  if (isCounteredWord(offer.offer_status)) return { found: true, result: { listed_at_send: 'countered' } };
  const byCounter = offers.find(
    (o) =>
      o.offer_id !== offerId &&
      mayAnswerCounter(o, context.amount) &&
      o.offer_status === 'accepted' &&
      (positiveId(o.counter_offer_id) !== undefined
        ? !otherCounterIds.has(String(o.counter_offer_id)) &&
          (context.amount === undefined || o.offer_amount === context.amount)
        : // An offer that names no counter (the spec's offer has no such field): ours only by our
          // amount, or when no other counter on the request can have made it.
          context.amount !== undefined
          ? o.offer_amount === context.amount
          : otherCounterIds.size === 0),
  );
  if (byCounter)
    return {
      found: true,
      result: {
        counter_offer_id: positiveId(byCounter.counter_offer_id),
        counter_offer_status: 'accepted',
        ...habit,
      },
    };
  const otherAccepted = offers.some((o) => o.offer_id !== offerId && o.offer_status === 'accepted');
  if (otherAccepted) return { found: false, moot: true };
  // The counter arrived: nothing else moves an undecided offer to `rejected`. Where this service
  // lists a waiting countered offer otherwise, its buyer refused it. Before any counter has shown how
  // it lists one, the listing may be either (a service that lists a countered offer `rejected` at
  // once): no status is kept, and the record reads the listing as the brokerage's counters come to
  // show it (the spec's own flow, the buyer's refusal, until then). Before, the refusal was kept, and
  // on such a service the brokerage's first counter, its answer lost, showed Counter rejected while
  // it waited, whatever later counters showed (a replay of readings sweep 1594 run 3).
  if (offer.offer_status === 'rejected') {
    if (context.habit === undefined) return { found: true, result: { listing_unsettled: true } };
    return {
      found: true,
      result: context.habit === 'rejected' ? { ...habit } : { counter_offer_status: 'rejected', ...habit },
    };
  }
  return { found: false, moot: false };
}

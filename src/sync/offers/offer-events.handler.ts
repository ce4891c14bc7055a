import { Injectable } from '@nestjs/common';
import { BrokerageCrms } from '../../brokerages/brokerage-crms';
import { CashOfferClients } from '../../brokerages/cash-offer-clients';
import type { BrokerageCrm } from '../../brokerages/brokerage-crm';
import {
  NewOfferEvent,
  OfferRequestApprovedEvent,
  type JsonObject,
  type Offer,
} from '../../cash-offer/schema';
import { LinkRepository, OutboxRepository, RunRepository, type Link } from '../../ledger';
import { Clock } from '../../common/clock';
import { EventRefusedError } from '../../inbox/event-refused.error';
import { EventWaitsError } from '../../inbox/event-waits.error';
import { readEventPayload } from '../../inbox/event-payload.reader';
import type { InboxEventContext } from '../../inbox/inbox-event.handlers';
import { InboxHandler } from '../../inbox/inbox-handler.decorator';
import { LINK } from '../common/listing-deal.properties';
import { DecisionHistoryRecorder } from '../history/decision-history.recorder';
import { RequestStatusService } from '../request-status/request-status.service';
import { EvidenceLooks } from '../seller-requests/evidence-looks';
import {
  counterCommandKey,
  counterCrmId,
  countersOfRequest,
  decodeCounterLink,
  encodeCounterLink,
  refusalListingTeaches,
} from './counter-link';
import { sellerDecisionSent } from './agent-held-stage';
import {
  describeUpdate,
  readCounterUpdate,
  type CounterUpdate,
} from '../../cash-offer/counter-update.reader';
import { isAnsweredCounter, isCounteredWord, isInferredCounterEnd } from './offer-record.view';
import { OffersService } from './offers.service';
import { UnlistedOffers } from './unlisted-offers';
import { expiryMs, ranOutBy } from '../common/expiry';

// The job whose complete passes read every offer (offers-reconcile.job.ts).
const OFFERS_PASS_JOB = 'offers-reconcile';

// Applies the service's events: a new offer (also a buyer accepting our counter), a buyer rejecting
// our counter (UPDATE), a request approved. An event is a claim, not a fact (anyone who learns a
// webhook URL can post one): it names a request this brokerage's ledger links, or it is refused; and
// what it says is read again from the service (GET /offers for that request), whose answer is what
// lands in the CRM (save an offer that ran out and dropped off the list before its event could be
// applied: showRanOut). A repeated or late event converges on the same records.
@Injectable()
export class OfferEventsHandler {
  constructor(
    private readonly crms: BrokerageCrms,
    private readonly cashOffers: CashOfferClients,
    private readonly offers: OffersService,
    private readonly status: RequestStatusService,
    private readonly links: LinkRepository,
    private readonly outbox: OutboxRepository,
    private readonly history: DecisionHistoryRecorder,
    private readonly clock: Clock,
    private readonly unlisted: UnlistedOffers,
    private readonly looks: EvidenceLooks,
    private readonly runs: RunRepository,
  ) {}

  @InboxHandler('new_offer')
  async onNewOffer(payload: JsonObject, { brokerageId, receivedAt }: InboxEventContext): Promise<void> {
    const claimed = readEventPayload(NewOfferEvent, payload, 'new_offer');
    await this.awaitCreateOf(brokerageId, claimed);
    const requestLink = await this.requireLinked(
      brokerageId,
      claimed.offer_request_id,
      `offer ${claimed.offer_id}`,
    );
    const crm = await this.crms.get(brokerageId);
    const listed = await this.refreshRequest(crm, claimed.offer_request_id, receivedAt);
    const offer = listed.find((o) => o.offer_id === claimed.offer_id);
    // An offer gone from the list (it may have expired and dropped off) that has a record: the
    // reconcile settles it (UnlistedOffers), once linked (a stop may have cut the link); the event,
    // a late or repeated delivery, has nothing to add and is no refusal for the operator to read.
    if (!offer && (await this.offers.recordOfUnlistedOffer(crm, offerOfEvent(claimed)))) return;
    if (!offer && (await this.ranOutBeforeApplied(claimed, requestLink, receivedAt)))
      return this.showRanOut(crm, claimed, receivedAt!);
    if (!offer)
      throw new EventRefusedError(
        `new_offer refused: the service does not list offer ${claimed.offer_id} on offer request ${claimed.offer_request_id}`,
      );
    // A buyer who accepted our counter made this offer: the countered record shows the counter
    // accepted from the same listing (offerRecordView), nothing more to do here.
    await this.history.eventApplied(
      brokerageId,
      `offer:${offer.offer_id}`,
      'new_offer',
      newOfferWords(offer),
      {
        requestId: offer.offer_request_id,
        amount: offer.offer_amount,
        status: offer.offer_status,
      },
    );
  }

  // An offer the service no longer lists, that ran out before its event could be applied (the daemon
  // down, or killed again and again, for the offer's whole life, under a service that drops expired
  // offers from GET /offers; the event delivered while the offer was live, or a retry of it after):
  // the event is all that is left of it, so its record is made from the event, Expired, rather than
  // the offer going unseen. A forged event gets this far only if it names a linked request, claims a
  // life after that request was asked for, and no clean complete pass ran in that life, which passes
  // every few minutes make a narrow gap; the record it could make is an Expired one.
  private async showRanOut(crm: BrokerageCrm, claimed: NewOfferEvent, receivedAt: Date): Promise<void> {
    const offer = offerOfEvent(claimed, 'expired');
    const counts = await this.offers.applyOffers(crm, [offer], { readAt: receivedAt });
    if (counts.failed > 0)
      throw new Error(`offer ${offer.offer_id}: its record could not be written; tried again later`);
    await this.history.eventApplied(
      crm.brokerageId,
      `offer:${offer.offer_id}`,
      'new_offer',
      `${newOfferWords(offer)}; the service no longer lists it (it ran out at ${claimed.offer_expires} before the event could be applied): shown Expired from the event alone`,
      { requestId: offer.offer_request_id, amount: offer.offer_amount, status: 'expired' },
    );
  }

  // The spec does not show the UPDATE's payload: the counter, the countered offer and the request
  // are read wherever a plausible shape puts them (readCounterUpdate), and the counter is found in
  // the ledger by its id, by the countered offer, or as the one unnamed counter on the request.
  @InboxHandler('UPDATE')
  async onUpdate(payload: JsonObject, { brokerageId, receivedAt }: InboxEventContext): Promise<void> {
    // The spec shows no UPDATE payload, so none is refused for its shape (OfferUpdateEvent is only
    // our reading of it): its ids are read wherever a plausible payload puts them, as numbers or as
    // digits in a string, and the claim is checked against the service's listing below.
    const update = readCounterUpdate(payload);
    const link = await this.counterLinkOf(brokerageId, update);
    if (!link && update.offerId !== undefined) {
      // Our counter's answer is still being looked for (a kill between the call and its answer), or
      // it is done and its CRM write-back, which writes the link, has not run yet (a buyer can refuse
      // within a second): the event waits, retried with backoff, until the ledger links the counter.
      // A lost answer is looked for at once: this waiting UPDATE is the buyer's answer to it, which
      // the counter's reconcile reads (CounterOfferExecutor.updatesOf).
      const sent = await this.outbox.findByKey(counterCommandKey(brokerageId, update.offerId));
      if (sent && sent.state !== 'dead')
        throw new EventWaitsError(
          `UPDATE on offer ${update.offerId}: our counter on it is ${sent.state === 'done' ? 'done, its link not written yet' : sent.state}` +
            `${await this.looks.lookNow(sent)}; tried again once it is linked`,
        );
    }
    if (!link)
      throw new EventRefusedError(
        `UPDATE refused: ${describeUpdate(update)} is not a counter this brokerage made (no ledger link)`,
      );
    const known = decodeCounterLink(link);
    const requestId = update.requestId ?? known.requestId;
    if (requestId === undefined)
      throw new EventRefusedError(
        `UPDATE refused: ${describeUpdate(update)} names no offer request, and the ledger's link of offer ${link.remoteId} does not either`,
      );
    await this.requireLinked(brokerageId, requestId, `counter on offer ${link.remoteId}`);
    const crm = await this.crms.get(brokerageId);
    const listed = await this.refreshRequest(crm, requestId, receivedAt);
    const countered = listed.find((o) => String(o.offer_id) === link.remoteId);
    // An UPDATE naming our counter by the id the service gave it, or the offer our one counter is on
    // (an agent counters an offer once) with no other counter's id, is the service's word about that
    // counter, even where the offer stays listed `countered` (a service may keep that status after
    // the buyer's refusal). One that names only the request is a claim the listing must confirm: the
    // countered offer no longer waits for the buyer.
    const namesOurCounter =
      update.counterId !== undefined && known.id !== undefined
        ? known.id === String(update.counterId)
        : update.offerId !== undefined && String(update.offerId) === link.remoteId;
    // Not listed at all, the offer may have run out and dropped off (a service that drops expired
    // offers from GET /offers) while the UPDATE waited: one naming our counter is still its buyer's
    // word (a 200-kill soak, seed 20261233, refused such an UPDATE delayed two minutes behind kills,
    // and the record kept `expired` for a counter its buyer had refused).
    if (!namesOurCounter && (!countered || isCounteredWord(countered.offer_status)))
      throw new EventRefusedError(
        `UPDATE refused: the service still shows offer ${link.remoteId} ${countered ? countered.offer_status : 'not listed'} on offer request ${requestId}`,
      );
    const status = refusalWord(update.status);
    // Only a refusal is taken from the event; an acceptance is read from the buyer's new offer. A
    // counter the seller's reject was taken to end takes its buyer's refusal all the same, and so
    // does one shown ended unanswered (lapsed, or its offer withdrawn) when the UPDATE names our
    // counter: that end is read from the listings and the clock, where this is the buyer's own word,
    // come late (seen in a crash soak: the UPDATE waited 84 s behind kill-cut drains, and the record
    // kept `expired` for a counter the buyer had refused before it ran out). One naming another
    // counter id is no word about ours, whatever the listing.
    const answered =
      isAnsweredCounter(known.status) &&
      known.endedBySeller === undefined &&
      !(isInferredCounterEnd(known.status) && namesOurCounter);
    if (!isAnsweredCounter(status) || status === 'accepted' || answered) return;
    const id = known.id ?? (update.counterId !== undefined ? String(update.counterId) : undefined);
    await this.links.upsertLinks(brokerageId, LINK.counter, [
      {
        remoteId: link.remoteId,
        crmId: counterCrmId(link.remoteId, id),
        contentHash: encodeCounterLink({
          ...known,
          id,
          status,
          requestId,
          // Listed `rejected` by the seller's reject (or the cascade), which says nothing of how a
          // refusal lists it.
          listedAfterRefusal:
            known.endedBySeller === undefined &&
            countered &&
            refusalListingTeaches(
              countered,
              listed,
              await sellerDecisionSent(this.outbox, brokerageId, link.remoteId),
            )
              ? countered.offer_status
              : known.listedAfterRefusal,
          // The buyer's own word: a refusal, whenever it came.
          endedPastExpiry: undefined,
          endedBySeller: undefined,
        }),
      },
    ]);
    if (countered) await this.refreshRequest(crm, requestId);
    else await this.unlisted.showAgain(crm, link.remoteId);
    await this.history.eventApplied(
      brokerageId,
      `offer:${link.remoteId}`,
      'UPDATE',
      `the buyer ${status} counter ${id ?? '(no id)'}`,
      {
        requestId,
        counterId: id ?? null,
        counterStatus: status,
      },
    );
  }

  private async counterLinkOf(brokerageId: string, update: CounterUpdate): Promise<Link | null> {
    if (update.counterId !== undefined) {
      const byId = await this.links.findByCrmId(brokerageId, LINK.counter, String(update.counterId));
      if (byId) return byId;
    }
    if (update.offerId !== undefined) {
      const byOffer = await this.links.find(brokerageId, LINK.counter, String(update.offerId));
      if (byOffer) return byOffer;
    }
    // Only an UPDATE that names no offer is matched by its request: one naming an offer whose counter
    // is not linked (its answer lost) is about that offer, never another offer's unnamed counter on
    // the same request (readings sweep 1580 run 2 showed a refusal of one offer's counter on another).
    if (update.requestId !== undefined && update.offerId === undefined) {
      const requestId = update.requestId;
      const links = await this.links.findByContent(brokerageId, LINK.counter, `"r":${requestId}`);
      const unnamed = countersOfRequest(links, requestId).filter(
        (c) => c.id === undefined && !isAnsweredCounter(c.status),
      );
      if (unnamed.length === 1) return links.find((l) => l.remoteId === unnamed[0].offerId) ?? null;
    }
    return null;
  }

  @InboxHandler('offer_request_approved')
  async onApproved(payload: JsonObject, { brokerageId }: InboxEventContext): Promise<void> {
    const approved = readEventPayload(OfferRequestApprovedEvent, payload, 'offer_request_approved');
    // A request not linked (yet) is left alone: the status is shown from the active list once it is.
    const crm = await this.crms.get(brokerageId);
    const outcome = await this.status.apply(crm, approved.offer_request_id, approved.offer_request_status);
    // Tried again with backoff; the CRM's refusal is on the request meanwhile (RequestStatusService).
    if (outcome === 'failed')
      throw new Error(
        `offer request ${approved.offer_request_id}: its status could not be shown on its listing deal; tried again later`,
      );
  }

  // An offer can arrive before its request is linked: the create's answer is still being written
  // back, or was lost and is being looked for. Then the event waits (retried with backoff) instead
  // of being refused; it still has to name a linked request before anything is written. A lost
  // create is looked for at once, not at its next check (30 s and more away): this waiting event
  // names its request (offer-echoes.ts), and an offer that expires meanwhile may drop from
  // GET /offers, after which the event could no longer be confirmed.
  private async awaitCreateOf(brokerageId: string, claimed: NewOfferEvent): Promise<void> {
    const dealId = claimed.offer_request_external_id;
    if (typeof dealId !== 'string' || dealId === '') return;
    if (await this.links.find(brokerageId, LINK.offerRequest, String(claimed.offer_request_id))) return;
    // The event is evidence the create's look reads (its offer echoes): brought forward to now.
    const create = await this.looks.pendingCreateOf(brokerageId, dealId);
    if (create)
      throw new EventWaitsError(
        `offer ${claimed.offer_id}: offer request ${claimed.offer_request_id} is not linked yet; the create for deal ${dealId} is ${create.state}` +
          `${await this.looks.lookNow(create)}; tried again later`,
      );
  }

  private async requireLinked(brokerageId: string, requestId: number, what: string): Promise<Link> {
    const link = await this.links.find(brokerageId, LINK.offerRequest, String(requestId));
    if (!link)
      throw new EventRefusedError(
        `${what} names offer request ${requestId}, which no listing deal of brokerage ${brokerageId} is linked to`,
      );
    return link;
  }

  // Whether an offer its event names, and the service no longer lists, ran out and dropped off the
  // list before the event could be applied: the claim fits what the ledger knows of its request
  // (ranOutCheckSpan), and no clean complete offers pass ran while it says the offer was live.
  private async ranOutBeforeApplied(
    claimed: NewOfferEvent,
    requestLink: Link,
    receivedAt: Date | undefined,
  ): Promise<boolean> {
    const span = ranOutCheckSpan(claimed, {
      receivedAt,
      nowMs: this.clock.nowMs(),
      requestAskedAt: await this.looks.requestAskedAt(requestLink),
      requestLinkedAt: requestLink.createdAt,
    });
    if (!span) return false;
    const passes = await this.runs.cleanRunsWithin(
      requestLink.brokerageId,
      OFFERS_PASS_JOB,
      new Date(span.fromMs),
      new Date(span.toMs),
    );
    return passes.length === 0;
  }

  // What an event makes the daemon write is ordered by when this re-read was asked for (readAt in
  // OffersService.refreshRequest), not by when the webhook came: an event's own fields never reach
  // an offer record (they say which request to read; an UPDATE's refusal goes into the counter's
  // link, which the record shows from the re-read after it). Were they written as delivered, their
  // read time would be the webhook's receipt (the inbox row's received_at): the service sent them at
  // or before that instant, and claiming any later time (the drain's) would rank an answer that sat
  // in the inbox above one read from the service meanwhile.
  private async refreshRequest(crm: BrokerageCrm, requestId: number, receivedAt?: Date): Promise<Offer[]> {
    const client = this.cashOffers.get(crm.brokerageId);
    const { counts, offers } = await this.offers.refreshRequest(crm, client, requestId, receivedAt);
    // Failed records make the event fail, so the inbox retries it with backoff.
    if (counts.failed > 0)
      throw new Error(`${counts.failed} offer record(s) of request ${requestId} could not be written`);
    return offers;
  }
}

// The spec's one word on the UPDATE: it is made when the buyer rejects a counter. A word in it that
// says the counter was accepted, or still waits, is taken at that; a refusal word the records know
// (declined, expired...) is kept; any other word (buyer_rejected, refused), or none, is that
// refusal, shown `rejected` (a CRM's counter status may take only the words it knows).
function refusalWord(status: string | undefined): string {
  if (status === undefined) return 'rejected';
  if (isAnsweredCounter(status) || STILL_WAITING.has(status)) return status;
  return 'rejected';
}

// A counter's words for "not answered yet" (the spec shows none): never taken as the buyer's answer.
const STILL_WAITING = new Set(['pending', 'open']);

function newOfferWords(offer: Offer): string {
  const counter =
    offer.offer_is_counter_offer && offer.counter_offer_id
      ? `, the buyer's acceptance of counter ${offer.counter_offer_id}`
      : '';
  return `offer ${offer.offer_id} of ${offer.offer_amount} on request ${offer.offer_request_id} (${offer.offer_status}${counter})`;
}

// A clean complete offers pass wholly inside an offer's claimed life would have listed it (and made
// its record, once the request was linked). The service's times are read against the daemon's clock,
// so a pass counts as inside only with this much to spare at either end.
const CLOCK_SLACK_MS = 10_000;

// What the ledger knows of the request an event names, against which its claim is checked.
export interface RanOutEvidence {
  // When the webhook came (the inbox row's received_at).
  receivedAt: Date | undefined;
  nowMs: number;
  // No offer on the request is older: the deal's first create was queued then (its link, if none).
  requestAskedAt: Date;
  // From then on a complete pass writes the request's offers.
  requestLinkedAt: Date;
}

// For an offer its event names and the service no longer lists: when it can have run out and dropped
// off the list before the event could be applied, the span (ms) a clean complete offers pass must
// not lie wholly within for the event to stand (such a pass would have listed the offer); null when
// it cannot. It can when it has an amount (the one field a record needs), is past its expiry now, was
// made no later than delivered and not before its request was asked for, and either was delivered
// while live (the daemon then down, or killed again and again, until it ran out) or, delivered only
// after its expiry (a retry of a delivery that failed while the daemon was down), gives when it was
// made, so that its whole life can be checked against the passes.
export function ranOutCheckSpan(
  claimed: { offer_expires?: string | null; created_at?: string | null; offer_amount?: number },
  evidence: RanOutEvidence,
): { fromMs: number; toMs: number } | null {
  const { receivedAt, nowMs, requestAskedAt, requestLinkedAt } = evidence;
  if (!receivedAt || typeof claimed.offer_amount !== 'number') return null;
  const expires = expiryMs(claimed.offer_expires);
  const created = expiryMs(claimed.created_at);
  const receivedMs = receivedAt.getTime();
  if (expires === null || !ranOutBy(expires, nowMs)) return null;
  if (created !== null && (created > receivedMs || created < requestAskedAt.getTime() - CLOCK_SLACK_MS))
    return null;
  if (created === null && ranOutBy(expires, receivedMs)) return null;
  const liveFrom = Math.max(created ?? receivedMs, requestLinkedAt.getTime());
  return { fromMs: liveFrom + CLOCK_SLACK_MS, toMs: expires - CLOCK_SLACK_MS };
}

// The offer a new_offer event describes, under the status given (by default, its own).
function offerOfEvent(claimed: NewOfferEvent, status = claimed.offer_status): Offer {
  const { event: _event, ...fields } = claimed;
  return { ...fields, offer_status: status } as unknown as Offer;
}

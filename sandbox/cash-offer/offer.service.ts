import { Injectable } from '@nestjs/common';
import {
  BUYER_BROKER_COMMISSION_PCT,
  CounterOffer,
  CounterOfferBody,
  JsonObject,
  Offer,
  OfferDecisionBody,
} from '../../src/cash-offer/schema';
import { Notifier, ACQUISITIONS_EMAIL } from './notifier';
import { toNewOfferEvent, toOffer } from './offer.view';
import { parseOffersQuery } from './offers.query';
import { RequestLifecycle, addressOf } from './request.lifecycle';
import { SandboxClock } from './sandbox.clock';
import { badRequest, conflict, forbidden, notFound, readBody } from './sandbox.errors';
import { SandboxStore } from './sandbox.store';
import { SpecReadings, type SpecReadingValues } from './spec-readings';
import {
  assertCounterComplete,
  counterOmittedAsStored,
  counterRejectedMethod,
  counterRejectedUpdate,
  withdrawnOfferWord,
} from './spec-readings.answers';
import { SandboxAccount, StoredCounterOffer, StoredOffer, StoredOfferRequest } from './sandbox.types';
import { buyerOfferDefaults } from './simulated-buyers';

const DAY_MS = 24 * 3600 * 1000;
export const DEFAULT_OFFER_LIFETIME_MS = 7 * DAY_MS;

// Offers, decisions and counter offers with the cascades of the spec's offer status table.
@Injectable()
export class OfferService {
  constructor(
    private readonly store: SandboxStore,
    private readonly clock: SandboxClock,
    private readonly lifecycle: RequestLifecycle,
    private readonly notifier: Notifier,
    private readonly readings: SpecReadings,
  ) {}

  // A simulated buyer makes an offer; `overrides` may set any offer field (buyer pct stays 3).
  makeOffer(r: StoredOfferRequest, overrides: JsonObject = {}): Offer {
    if (!this.lifecycle.isActive(r))
      throw conflict(
        `offer request ${r.offer_request_id} is ${r.offer_request_status}; buyers only make offers on active requests`,
      );
    const nowMs = this.clock.nowMs();
    const o: StoredOffer = {
      ...buyerOfferDefaults(r, nowMs, DEFAULT_OFFER_LIFETIME_MS),
      ...(overrides as Partial<StoredOffer>),
      offer_id: this.store.nextOfferId(),
      offer_request_id: r.offer_request_id,
      buyer_broker_commission_pct: BUYER_BROKER_COMMISSION_PCT,
      created_at: new Date(nowMs).toISOString(),
      offer_status: 'active',
      offer_decided_at: null,
      counter_offer_id: null,
    };
    if (typeof o.offer_amount !== 'number' || o.offer_amount <= 0)
      throw badRequest('offer_amount must be a positive number');
    this.store.addOffer(o);
    this.store.activeOffers.add(o);
    this.store.noteExpiry(o.offer_expires);
    this.announce(r, o);
    return toOffer(o, r);
  }

  // `shown`: how the spec reading in force lists an offer (undefined: not listed); the filters and
  // the page apply to what is shown.
  list(
    caller: SandboxAccount,
    query: URLSearchParams,
    shown: (offer: Offer) => Offer | undefined = (offer) => offer,
    order: SpecReadingValues['offersOrder'] = 'made',
  ): Offer[] {
    const q = parseOffersQuery(query);
    const result: Offer[] = [];
    for (const o of this.store.offersInOrder(order)) {
      const r = this.store.requests.get(o.offer_request_id);
      if (!r || r.ownerKey !== caller.key) continue;
      if (q.requestId !== undefined && o.offer_request_id !== q.requestId) continue;
      const offer = shown(toOffer(o, r));
      if (offer === undefined) continue;
      if (q.status !== undefined && offer.offer_status !== q.status) continue;
      result.push(offer);
    }
    return result.slice(q.offset, q.offset + q.limit);
  }

  // PATCH /offers: accept (cascade) or reject an offer on one of the caller's requests.
  decide(caller: SandboxAccount, body: unknown): Offer {
    const b = readBody(OfferDecisionBody, body);
    const { offer, request } = this.ownedOffer(caller, b.offer_id);
    if (!this.mayDecide(offer, b.offer_status))
      throw conflict(
        `offer ${offer.offer_id} is ${listedStatus(offer, this.readings.current)}; it can no longer be ${b.offer_status}`,
      );
    if (b.offer_status === 'accepted') this.acceptCascade(request, offer);
    else {
      this.setStatus(offer, 'rejected');
      // Rejecting a countered offer withdraws the counter the buyer has not decided yet, under our
      // reading; under `standing` the buyer may still answer it.
      if (this.readings.current.counterAfterSellerReject === 'ended')
        for (const c of this.store.countersOfRequest(offer.offer_request_id))
          if (c.offer_id === offer.offer_id && c.counter_offer_status === 'pending') {
            c.counter_offer_status = 'rejected';
            c.updated_at = this.clock.nowIso();
          }
    }
    return toOffer(offer, request);
  }

  // Whether the seller may decide the offer so now (counteredOfferDecisions).
  private mayDecide(offer: StoredOffer, decision: string): boolean {
    if (offer.offer_status === 'active') return true;
    if (offer.offer_status !== 'countered') return false;
    const readings = this.readings.current;
    switch (readings.counteredOfferDecisions) {
      case 'accept-too':
        return true;
      case 'as-listed':
        return listedStatus(offer, readings) === 'active';
      default:
        return decision === 'rejected';
    }
  }

  counter(caller: SandboxAccount, body: unknown): CounterOffer {
    const b = readBody(CounterOfferBody, body);
    assertCounterComplete(b, this.readings.current.counterOmittedFields);
    // A new counter waits on its buyer: only the service's word for that is taken.
    const pendingWord = this.readings.current.counterPendingWord;
    if (b.counter_offer_status !== undefined && b.counter_offer_status !== pendingWord)
      throw badRequest(
        `counter_offer_status may only be "${pendingWord}" when countering; the buyer decides the rest`,
      );
    const { offer } = this.ownedOffer(caller, b.offer_id);
    if (offer.offer_status !== 'active')
      throw conflict(
        `offer ${offer.offer_id} is ${offer.offer_status}; only an active offer can be countered`,
      );
    const now = this.clock.nowIso();
    const c: StoredCounterOffer = {
      ...counterOmittedAsStored(b, offer, this.readings.current.counterOmittedFields),
      ...b,
      counter_offer_id: this.store.nextCounterId(),
      offer_request_id: offer.offer_request_id,
      counter_offer_status: 'pending',
      created_at: now,
      updated_at: null,
    };
    this.store.counters.set(c.counter_offer_id, c);
    this.store.noteExpiry(c.counter_offer_expires ?? null);
    this.setStatus(offer, 'countered');
    return { ...c };
  }

  // The buyer accepts a counter: a new accepted offer on its terms, everything else rejected.
  acceptCounter(counterId: string): Offer {
    const c = this.pendingCounter(counterId);
    const original = this.store.offers.get(c.offer_id)!;
    const r = this.store.requests.get(c.offer_request_id)!;
    const nowMs = this.clock.nowMs();
    const now = new Date(nowMs).toISOString();
    c.counter_offer_status = 'accepted';
    c.updated_at = now;
    const o: StoredOffer = {
      ...original,
      offer_id: this.store.nextOfferId(),
      offer_amount: c.counter_offer_amount,
      buyer_pays_buyer_broker_commission:
        c.buyer_pays_buyer_broker_commission ?? original.buyer_pays_buyer_broker_commission,
      buyer_pays_listing_broker_commission:
        c.buyer_pays_listing_broker_commission ?? original.buyer_pays_listing_broker_commission,
      listing_broker_commission_pct:
        c.listing_broker_commission_pct ?? original.listing_broker_commission_pct,
      created_at: now,
      offer_expires: c.counter_offer_expires ?? original.offer_expires,
      offer_memo: c.counter_offer_memo ?? original.offer_memo,
      offer_status: 'accepted',
      additional_terms: c.counter_offer_terms ?? original.additional_terms,
      earnest_money: c.counter_earnest_money ?? original.earnest_money,
      em_hard_post_inspection: c.counter_em_hard_post_inspection ?? original.em_hard_post_inspection,
      lease_back: c.counter_lease_back ?? original.lease_back,
      lease_back_period: c.counter_lease_back_period ?? original.lease_back_period,
      flexible_closing: c.counter_flexible_closing ?? original.flexible_closing,
      post_possession: c.counter_post_possession ?? original.post_possession,
      post_possession_period: c.counter_post_possession_period ?? original.post_possession_period,
      waive_warranty: c.counter_waive_warranty ?? original.waive_warranty,
      inspection_period: c.counter_inspection_period ?? original.inspection_period,
      offer_is_counter_offer: true,
      offer_decided_at: now,
      test: c.test ?? original.test,
      viewed: false,
      counter_offer_id: c.counter_offer_id,
    };
    this.store.addOffer(o);
    const spared =
      this.readings.current.counterAcceptedOriginalListedAs === 'unchanged' ? original : undefined;
    this.acceptCascade(r, o, spared);
    this.announce(r, o);
    return toOffer(o, r);
  }

  // The buyer rejects a counter: the countered offer becomes what the spec reading in force says
  // (rejected, ours; active again, undecided, for the seller to accept or reject; or left countered)
  // and the UPDATE callback is sent.
  rejectCounter(counterId: string): StoredCounterOffer {
    const c = this.pendingCounter(counterId);
    const now = this.clock.nowIso();
    c.counter_offer_status = 'rejected';
    c.updated_at = now;
    const original = this.store.offers.get(c.offer_id);
    if (original?.offer_status === 'countered') this.afterRefusedCounter(original);
    const r = this.store.requests.get(c.offer_request_id)!;
    const shape = this.readings.current.counterRejectedCallback;
    const update = counterRejectedUpdate(c, r, now, shape, this.readings.current.counterRefusedWord);
    if (update) this.notifier.event(r, update, counterRejectedMethod(shape));
    return { ...c };
  }

  private afterRefusedCounter(original: StoredOffer): void {
    switch (this.readings.current.counterRejectedOfferListedAs) {
      case 'active':
        this.setStatus(original, 'active', false);
        original.offer_decided_at = null;
        return;
      case 'countered':
        return;
      default:
        this.setStatus(original, 'rejected');
    }
  }

  // A buyer takes back an offer the agent has not decided (control API). The spec shows no such
  // status: the word it is listed under, or its leaving the list, is a spec reading.
  withdraw(offerId: number): Offer {
    const offer = this.store.offers.get(offerId);
    if (!offer) throw notFound(`offer ${offerId} does not exist`);
    if (!['active', 'countered'].includes(offer.offer_status))
      throw conflict(`offer ${offerId} is ${offer.offer_status}; only an undecided offer can be withdrawn`);
    const word = withdrawnOfferWord(this.readings.current.withdrawnOfferListedAs);
    this.setStatus(offer, word);
    const now = this.clock.nowIso();
    for (const c of this.store.countersOfRequest(offer.offer_request_id))
      if (c.offer_id === offer.offer_id && c.counter_offer_status === 'pending') {
        c.counter_offer_status = 'withdrawn';
        c.updated_at = now;
      }
    return toOffer(offer, this.store.requests.get(offer.offer_request_id));
  }

  // Counters past counter_offer_expires that their buyer did not answer lapse, where the reading
  // says so (counterLapse): the counter `expired`, the countered offer undecided again or expired
  // with it. Returns when the next pending counter runs out (watched under every reading, so a
  // reading switched on later still finds it).
  lapseDue(nowMs: number): number {
    const lapse = this.readings.current.counterLapse;
    let next = Number.POSITIVE_INFINITY;
    for (const c of this.store.counters.values()) {
      if (c.counter_offer_status !== 'pending' || !c.counter_offer_expires) continue;
      const at = Date.parse(c.counter_offer_expires);
      if (Number.isNaN(at)) continue;
      if (at > nowMs || lapse === 'never') {
        if (at > nowMs) next = Math.min(next, at);
        continue;
      }
      c.counter_offer_status = 'expired';
      c.updated_at = new Date(nowMs).toISOString();
      const original = this.store.offers.get(c.offer_id);
      if (original?.offer_status !== 'countered') continue;
      if (lapse === 'offer-expired') this.setStatus(original, 'expired', false);
      else {
        this.setStatus(original, 'active', false);
        original.offer_decided_at = null;
        this.store.noteExpiry(original.offer_expires);
      }
    }
    return next;
  }

  // Offers past offer_expires that nobody decided become expired.
  expireDue(nowMs: number): void {
    for (const o of this.store.activeOffers) {
      if (Date.parse(o.offer_expires) <= nowMs) this.setStatus(o, 'expired', false);
    }
  }

  // `spared`: the countered offer, left as it was, where the reading says a counter's acceptance
  // rejects only the offers other than it.
  private acceptCascade(r: StoredOfferRequest, accepted: StoredOffer, spared?: StoredOffer): void {
    this.setStatus(accepted, 'accepted');
    for (const other of this.store.offersByRequest.get(r.offer_request_id) ?? []) {
      if (other !== accepted && other !== spared && ['active', 'countered'].includes(other.offer_status))
        this.setStatus(other, 'rejected');
    }
    const now = this.clock.nowIso();
    for (const c of this.store.countersOfRequest(r.offer_request_id)) {
      if (c.counter_offer_status === 'pending' && c.counter_offer_id !== accepted.counter_offer_id) {
        c.counter_offer_status = 'rejected';
        c.updated_at = now;
      }
    }
    if (!['under_contract', 'closed'].includes(r.offer_request_status))
      this.lifecycle.deactivate(r, 'under_contract');
    this.notifier.email(
      r,
      'offer_accepted',
      `Offer ${accepted.offer_id} accepted on ${addressOf(r)}`,
      `The caller accepted offer ${accepted.offer_id} ($${accepted.offer_amount}) on offer request ${r.offer_request_id}; please contact the listing agent at ${this.notifier.recipientOf(r)}.`,
      accepted.offer_id,
      ACQUISITIONS_EMAIL,
    );
  }

  private announce(r: StoredOfferRequest, o: StoredOffer): void {
    const event = toNewOfferEvent(o, r) as unknown as Record<string, unknown>;
    if (this.readings.current.offerNamesCounter === 'unnamed') delete event.counter_offer_id;
    if (this.readings.current.offerDecidedAt === 'null') event.offer_decided_at = null;
    if (this.readings.current.counterOfferFlag === 'null') event.offer_is_counter_offer = null;
    this.notifier.event(r, event);
    this.notifier.email(
      r,
      'new_offer',
      `New cash offer on ${addressOf(r)}`,
      `A buyer offered $${o.offer_amount} on offer request ${r.offer_request_id} (offer ${o.offer_id}, status ${o.offer_status}).`,
      o.offer_id,
    );
  }

  private setStatus(o: StoredOffer, status: string, decided = true): void {
    o.offer_status = status;
    if (decided) o.offer_decided_at = this.clock.nowIso();
    this.store.noteOfferWritten(o);
    if (status === 'active') this.store.activeOffers.add(o);
    else this.store.activeOffers.delete(o);
  }

  private ownedOffer(
    caller: SandboxAccount,
    offerId: number,
  ): { offer: StoredOffer; request: StoredOfferRequest } {
    const offer = this.store.offers.get(offerId);
    if (!offer) throw notFound(`offer ${offerId} does not exist`);
    const request = this.store.requests.get(offer.offer_request_id)!;
    if (request.ownerKey !== caller.key)
      throw forbidden(
        `offer ${offerId} is on offer request ${request.offer_request_id}, which belongs to another account`,
      );
    return { offer, request };
  }

  private pendingCounter(idParam: string): StoredCounterOffer {
    const c = /^\d+$/.test(idParam) ? this.store.counters.get(Number(idParam)) : undefined;
    if (!c) throw notFound(`counter offer ${idParam} does not exist`);
    if (c.counter_offer_status === 'expired')
      throw conflict(
        `counter offer ${c.counter_offer_id} expired at ${c.counter_offer_expires}; the buyer can no longer answer it`,
      );
    if (c.counter_offer_status !== 'pending')
      throw conflict(
        `counter offer ${c.counter_offer_id} is ${c.counter_offer_status}; the buyer already decided it`,
      );
    return c;
  }
}

// The status an offer is listed under (a countered one as counteredOfferListedAs says).
function listedStatus(offer: StoredOffer, readings: SpecReadingValues): string {
  return offer.offer_status === 'countered' ? readings.counteredOfferListedAs : offer.offer_status;
}

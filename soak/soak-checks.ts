import { TASK_GRACE_MS } from './soak-clocks';
import type { LedgerView } from './soak-ledger';
import type { StoredCounter, StoredOffer, StoredRequest } from './soak-service';
import { expectedOfferRecord, type AgentMove } from './soak-offer-truth';
import type { CrmObject, Decision, SoakWorld, StageKey } from './soak-world';
import { REQUESTED_STAGE } from './soak-world';

// What a crash must never cost, checked from outside once the daemon has settled: nothing lost,
// nothing done twice, nothing left undone, every offer record showing what the service says (wrong
// state), the offer clocks' tasks made once each and closed when due (soak-task-checks.ts), and the
// decision history telling every answer once (soak-history-checks.ts).
export type ViolationKind =
  | 'lost'
  | 'duplicate'
  | 'undone'
  | 'wrong state'
  | 'duplicate task'
  | 'missing task'
  | 'open task'
  | 'history';

export interface Violation {
  kind: ViolationKind;
  record: string;
  detail: string;
}

export interface Observed {
  requests: StoredRequest[];
  offers: StoredOffer[];
  counters: StoredCounter[];
  deals: CrmObject[];
  ledger: LedgerView;
  nowMs: number; // when the service and the CRM were read
  // Each offer's status as the service's API lists it (SOAK_SPEC_READINGS may make it differ from
  // the stored one); absent: as stored.
  listed?: ReadonlyMap<number, string>;
  // false: the service's create answer carries no inventory property id (SOAK_SPEC_READINGS
  // createAnswer id-only-*): the deal learns it only if the request is on the active list while a
  // reconcile reads it, so a deal without it is not counted (a wrong one still is).
  createAnswerHasInventory?: boolean;
  // Where only the UPDATE callback tells a buyer's refusal of a counter (the countered offer listed
  // the same before and after it: readings-sweep.ts, refusalCanBeSeen), the counters and offers whose
  // UPDATE the service gave up delivering (soak-service.ts, updatesGivenUp): nothing can tell the
  // daemon of those refusals, so a record left Countered for one is noted, not counted.
  refusalsOnlyByUpdateLost?: ReadonlySet<string>;
  // The counters whose buyer's refusal nothing could show the daemon (refusalsUnknowable): a record
  // left Countered for one is noted, not counted.
  refusalsUnknowable?: ReadonlyMap<number, string>;
  // Under every reading: the counters and offers whose UPDATE the service gave up delivering. A
  // refusal so lost, seen in the listings only after the counter's own expiry, reads the same as the
  // counter's lapse (refusalReadAsLapse).
  updatesGivenUp?: ReadonlySet<string>;
  // false: GET /active-offer-requests shows no request's status or id (SOAK_SPEC_READINGS
  // activeListShape declared), so an approval is known only by its event, which may be lost.
  activeListShowsStatus?: boolean;
  // true: GET /offers stops listing some offers (SOAK_SPEC_READINGS expiredOfferListedAs dropped), so
  // a deal's offer count may rightly include offers no longer listed.
  offersMayDropFromList?: boolean;
  // false: GET /offers lists offer_decided_at as null on every offer (SOAK_SPEC_READINGS
  // offerDecidedAt null), so no record can show the decision's time.
  decidedAtListed?: boolean;
  // The word the service's API gives a counter its buyer has not answered (SOAK_SPEC_READINGS
  // counterPendingWord; it stores `pending`): the daemon shows the word a counter's answer carried
  // (docs/spec-decisions.md), or `pending` where the answer carried none.
  counterPendingWord?: string;
  // The word the service's UPDATE gives a counter its buyer refused (SOAK_SPEC_READINGS
  // counterRefusedWord; it stores `rejected`): the daemon keeps a refusal word it knows (`declined`).
  counterRefusedWord?: string;
  // Whether the service takes the seller's accept of an offer whose counter waits on its buyer
  // (SOAK_SPEC_READINGS counteredOfferDecisions; not shown): where it does, such an accept must be
  // carried out; where not, it must be refused and the refusal shown on the record.
  countersAcceptable?: boolean;
  // The offers nothing could show the daemon (unseeableOffers): one without a record is noted, not
  // counted lost.
  unseeable?: ReadonlyMap<number, string>;
  // The offers whose decision time nothing could show the daemon (decidedAtUnseeable): a record
  // without it is noted, not counted.
  decidedAtUnseeable?: ReadonlyMap<number, string>;
  // Where the check notes what it did not count.
  notes?: string[];
}

const EXPECTED: Record<Decision['kind'], { status: string; stage: StageKey }> = {
  accept: { status: 'accepted', stage: 'accepted' },
  reject: { status: 'rejected', stage: 'rejected' },
  counter: { status: 'countered', stage: 'countered' },
};

const text = (v: string | null | undefined): string => (v ?? '').trim();
const quote = (v: string): string => JSON.stringify(v.length > 160 ? `${v.slice(0, 160)}...` : v);

const ACTIVE = new Set(['active', 'receiving_offers']);

// Why a deal's request status is wrong against the service's, or null. The soak's requests go
// in_review (processing) -> active -> under_contract. The daemon learns an approval from the active
// list (which lists the request as active) or from the approval event (receiving_offers, the same
// state by another name), and the contract from the accepted offer; it cannot see `processing`, and
// the create's answer may call a request in review anything, or nothing (SOAK_SPEC_READINGS
// createAnswer), so a request not yet approved may show any status short of a contract.
export function requestStatusWrong(
  service: string,
  shown: string,
  activeListShowsStatus: boolean,
): string | null {
  if (service === 'under_contract') return shown === 'under_contract' ? null : 'an offer on it is accepted';
  if (shown === 'under_contract') return 'no offer on it is accepted';
  if (ACTIVE.has(service) && !ACTIVE.has(shown) && activeListShowsStatus) return 'the active list shows it';
  return null;
}

// An offer nobody can accept any more (docs/crm-mapping.md, `cash_offer_best_offer`).
const CLOSED_OFFER =
  /^(rejected|declined|expired|withdrawn|canceled|cancelled|rescinded|retracted|revoked)$/i;

// Why a deal's offer count or best offer differs from the offers GET /offers lists on its request,
// or null (docs/crm-mapping.md: the number of offers; the accepted offer's amount, else the highest
// offer still open, else empty). A request with no offer listed may show no count at all.
// An offer that ran out in the last moments (`ranOutLately`) is the daemon's next pass's, as its
// record is (checkSoak): the best offer may count it open or closed.
export function offerSummaryWrong(
  listed: { amount: number; status: string; ranOutLately?: boolean }[],
  shown: { count: string; best: string },
  offersMayDrop: boolean,
): string | null {
  if (listed.length === 0) return null;
  const accepted = listed.find((o) => o.status === 'accepted');
  const bestOf = (closed: (o: { status: string; ranOutLately?: boolean }) => boolean): string => {
    const open = listed.filter((o) => !closed(o)).map((o) => o.amount);
    const best = accepted ? accepted.amount : open.length > 0 ? Math.max(...open) : null;
    return best === null ? '' : String(best);
  };
  const expected = { count: String(listed.length), best: bestOf((o) => CLOSED_OFFER.test(o.status)) };
  const beforeLateRunOuts = bestOf((o) => CLOSED_OFFER.test(o.status) && !o.ranOutLately);
  const wrong = [
    ...(!offersMayDrop && shown.count !== expected.count
      ? [`offer count ${quote(shown.count)}, the service lists ${expected.count}`]
      : []),
    ...(shown.best !== expected.best && shown.best !== beforeLateRunOuts
      ? [`best offer ${quote(shown.best)}, expected ${quote(expected.best)} from the ${listed.length} listed`]
      : []),
  ];
  return wrong.length > 0 ? `the deal shows ${wrong.join('; ')}` : null;
}

// Why an offer record is not associated as the agent opens it, from its listing deal and its
// seller (docs/crm-mapping.md), or null.
export function offerRecordUnassociated(
  linked: { deal: string[]; contact: string[] },
  listing: { dealId: string; contactId: string },
): string | null {
  const missing = [
    ...(linked.deal.includes(listing.dealId) ? [] : [`listing deal ${listing.dealId}`]),
    ...(linked.contact.includes(listing.contactId) ? [] : [`seller ${listing.contactId}`]),
  ];
  if (missing.length === 0) return null;
  return `not associated with its ${missing.join(' or its ')} (associated with deals ${quote(linked.deal.join(','))}, contacts ${quote(linked.contact.join(','))})`;
}

export function checkSoak(world: SoakWorld, seen: Observed): Violation[] {
  const violations: Violation[] = [];
  const add = (kind: ViolationKind, record: string, detail: string): void => {
    violations.push({ kind, record, detail });
  };
  const dealById = new Map(seen.deals.map((d) => [d.id, d]));
  const errorsOf = (...refs: string[]): string[] =>
    seen.ledger.openErrors
      .filter((e) => refs.some((ref) => e.record_ref === ref || e.record_ref.endsWith(`:${ref}`)))
      .map((e) => `${e.field ? `${e.field}: ` : ''}${e.message}`);
  // Whether the deal's done create kept this field of the service's answer (or of what found it).
  const createTold = (dealId: string, field: string): boolean =>
    seen.ledger.outbox.some((c) => {
      if (
        !c.operation.startsWith('create_offer_request') ||
        c.record_ref !== `deal:${dealId}` ||
        c.state !== 'done'
      )
        return false;
      try {
        const result = JSON.parse(c.result ?? 'null') as Record<string, unknown> | null;
        return result?.[field] !== undefined && result[field] !== null;
      } catch {
        return false;
      }
    });
  const commandsOf = (ref: string): string =>
    seen.ledger.outbox
      .filter((c) => c.record_ref === ref || c.record_ref.endsWith(`:${ref}`))
      .map((c) => `#${c.id} ${c.operation} ${c.state}`)
      .join(', ') || 'none';

  // Every triggered deal: exactly one offer request, its ids written back, no false error.
  for (const listing of world.listings.values()) {
    if (!listing.triggered) continue;
    const deal = dealById.get(listing.dealId);
    const p = deal?.properties ?? {};
    const at = `deal ${listing.dealId}`;
    const requests = seen.requests.filter((q) => String(q.offer_request_external_id) === listing.dealId);
    if (requests.length === 0) {
      add(
        'lost',
        at,
        `no offer request at the service; deal request status ${quote(text(p.cash_offer_request_status))}, sync error ${quote(text(p.cash_offer_sync_error))}; outbox: ${commandsOf(listing.dealId)}`,
      );
      continue;
    }
    if (requests.length > 1)
      add(
        'duplicate',
        at,
        `${requests.length} offer requests: ${requests.map((q) => q.offer_request_id).join(', ')}`,
      );
    const request = requests[0];
    const missing: string[] = [];
    if (text(p.cash_offer_request_id) !== String(request.offer_request_id))
      missing.push(
        `request id ${quote(text(p.cash_offer_request_id))} (service: ${request.offer_request_id})`,
      );
    const inventoryShown = text(p.cash_offer_inventory_property_id);
    // Blank is not counted where the service never told the daemon: its create answer had no id
    // (id-only), or the answer was lost and the create found without one (by an offer event, or in
    // an active list that shows none); a reconcile may still learn it, if the request is listed then.
    const inventoryUnknowable =
      inventoryShown === '' &&
      (seen.createAnswerHasInventory === false || !createTold(listing.dealId, 'inventory_property_id'));
    if (!inventoryUnknowable && inventoryShown !== String(request.inventory_property_id ?? ''))
      missing.push(
        `inventory property id ${quote(text(p.cash_offer_inventory_property_id))} (service: ${request.inventory_property_id})`,
      );
    if (missing.length > 0) add('lost', at, `not written back: ${missing.join('; ')}`);
    const falseErrors = [
      ...(text(p.cash_offer_sync_error) ? [`CRM: ${text(p.cash_offer_sync_error)}`] : []),
      ...errorsOf(listing.dealId).map((e) => `ledger: ${e}`),
    ];
    // A false error on a deal tells the agent the request was lost: counted with the lost.
    if (falseErrors.length > 0 && missing.length === 0)
      add(
        'lost',
        at,
        `false open error though request ${request.offer_request_id} exists: ${quote(falseErrors.join(' | '))}`,
      );
    const statusWrong = requestStatusWrong(
      request.offer_request_status,
      text(p.cash_offer_request_status),
      seen.activeListShowsStatus !== false,
    );
    if (statusWrong)
      add(
        'wrong state',
        at,
        `the deal shows request status ${quote(text(p.cash_offer_request_status))}, the service ${request.offer_request_status} (request ${request.offer_request_id}): ${statusWrong}`,
      );
    const listedOffers = seen.offers
      .filter((o) => o.offer_request_id === request.offer_request_id)
      .filter((o) => !seen.listed || seen.listed.has(o.offer_id))
      .map((o) => {
        const status = seen.listed?.get(o.offer_id) ?? o.offer_status;
        const ranOutLately =
          o.offer_status === 'expired' && Date.parse(o.offer_expires ?? '') > seen.nowMs - TASK_GRACE_MS;
        return { amount: o.offer_amount, status, ranOutLately };
      });
    const summaryWrong = offerSummaryWrong(
      listedOffers,
      { count: text(p.cash_offer_offer_count), best: text(p.cash_offer_best_offer) },
      seen.offersMayDropFromList === true,
    );
    if (summaryWrong) add('wrong state', at, `${summaryWrong} (request ${request.offer_request_id})`);
    // The listing agent the service holds is the agent's last edit of the deal (soak-world.ts).
    const held = request.property ?? {};
    const heldAgent = `${String(held.ListAgentFirstName)} <${String(held.ListAgentEmail)}>`;
    const lastEdit = `${listing.listAgent.firstName} <${listing.listAgent.email}>`;
    if (request.property && heldAgent !== lastEdit)
      add(
        'undone',
        at,
        `the service holds listing agent ${heldAgent}, the deal's last edit is ${lastEdit} (${listing.earlierListAgents.length} edits); outbox: ${commandsOf(listing.dealId)}`,
      );
  }

  // Every offer on this run's requests: exactly one CRM offer record.
  const requestExternal = new Map(
    seen.requests.map((q) => [q.offer_request_id, String(q.offer_request_external_id)]),
  );
  const ours = new Set(
    seen.requests
      .filter((q) => world.listings.has(String(q.offer_request_external_id)))
      .map((q) => q.offer_request_id),
  );
  const recordsOfOffer = new Map<string, CrmObject[]>();
  for (const d of seen.deals) {
    const id = text(d.properties.cash_offer_offer_id);
    if (id) recordsOfOffer.set(id, [...(recordsOfOffer.get(id) ?? []), d]);
  }
  for (const offer of seen.offers) {
    if (!ours.has(offer.offer_request_id)) continue;
    const records = recordsOfOffer.get(String(offer.offer_id)) ?? [];
    const at = `offer ${offer.offer_id} (request ${offer.offer_request_id})`;
    const unseeable = seen.unseeable?.get(offer.offer_id);
    if (records.length === 0 && unseeable !== undefined)
      seen.notes?.push(`${at}: no CRM offer record, and nothing could show it: ${unseeable}`);
    else if (records.length === 0)
      add('lost', at, `no CRM offer record; service status ${offer.offer_status}`);
    if (records.length > 1)
      add('duplicate', at, `${records.length} CRM offer records: ${records.map((r) => r.id).join(', ')}`);
    // Opened from its listing deal and its seller (docs/crm-mapping.md): associated with both.
    const listing = world.listings.get(requestExternal.get(offer.offer_request_id) ?? '');
    for (const record of records) {
      const unassociated =
        listing && record.associations && offerRecordUnassociated(record.associations, listing);
      if (unassociated) add('wrong state', `${at}, record ${record.id}`, unassociated);
    }
    // What the buyer offered and on which request: what the agent decides on.
    for (const record of records) {
      const shownAmount = text(record.properties.cash_offer_offer_amount);
      const shownRequest = text(record.properties.cash_offer_offer_request_ref);
      if (shownAmount !== String(offer.offer_amount) || shownRequest !== String(offer.offer_request_id))
        add(
          'wrong state',
          `${at}, record ${record.id}`,
          `the CRM shows amount ${quote(shownAmount)} on request ${quote(shownRequest)}; the service says ${offer.offer_amount} on ${offer.offer_request_id}`,
        );
      // The offer's clock: the same instants, whatever form the service wrote them in.
      for (const [field, given] of [
        ['cash_offer_offer_expires', offer.offer_expires],
        ['cash_offer_offer_created_at', offer.created_at],
        ['cash_offer_offer_decided_at', seen.decidedAtListed === false ? null : offer.offer_decided_at],
      ] as const) {
        const shown = text(record.properties[field]);
        const unseen =
          field === 'cash_offer_offer_decided_at' ? seen.decidedAtUnseeable?.get(offer.offer_id) : undefined;
        if (given && shown === '' && unseen !== undefined)
          seen.notes?.push(`${at}, record ${record.id}: no ${field}, and nothing could show it: ${unseen}`);
        else if (given && Date.parse(shown) !== Date.parse(given))
          add(
            'wrong state',
            `${at}, record ${record.id}`,
            `the CRM shows ${field} ${quote(shown)}; the service says ${given}`,
          );
      }
    }
  }

  // Every decision: sent exactly once, and still shown on its record. An accept the agent followed
  // with a reject on the same record (the service refused it) is judged by the reject.
  const offerById = new Map(seen.offers.map((o) => [String(o.offer_id), o]));
  const lastDecisions = lastDecisionPerRecord(world.decisions);
  for (const d of world.decisions) {
    if (d.kind === 'accept' && lastDecisions.get(d.recordId) !== d) continue;
    const offer = offerById.get(d.offerId);
    const record = dealById.get(d.recordId);
    const stage = world.stageKeyOf(record?.properties.dealstage);
    const at = `offer record ${d.recordId} (offer ${d.offerId}, deal ${d.dealId})`;
    const counters = seen.counters.filter((c) => String(c.offer_id) === d.offerId);
    const expected = EXPECTED[d.kind];
    const decisionError = text(record?.properties.cash_offer_decision_error);
    const status = offer?.offer_status ?? 'missing';
    const ledgerErrors = errorsOf(d.recordId);
    const shows = `record in ${stage}, offer status ${status}${decisionError ? `, decision error ${quote(decisionError)}` : ''}${ledgerErrors.length ? `, open error ${quote(ledgerErrors.join(' | '))}` : ''}; outbox: ${commandsOf(d.recordId)}`;
    if (d.kind === 'counter' && counters.length > 1) {
      add(
        'duplicate',
        at,
        `counter sent ${counters.length} times (${counters.map((c) => c.counter_offer_id).join(', ')})`,
      );
      continue;
    }
    const sent = d.kind === 'counter' ? counters.length === 1 : status === expected.status;
    // The offer ran out before the decision reached the service (the agent decides no offer within
    // 60 s of its expiry, but a drain held up by kills may be later than that): nothing is left to
    // do. The record must show where the offer is; a reject has what it wanted, an accept or a
    // counter that could not be made must say so (docs/crm-mapping.md).
    // A counter that ran out before it reached the service is not sent (docs/crm-mapping.md): the
    // record must say so, in Counter requested (refused at the move, a field to fix) or where the
    // offer is (refused at the send).
    if (!sent && counterRanOut(d, seen.nowMs)) {
      if (decisionError === '' && ledgerErrors.length === 0)
        add('undone', at, `counter ran out before it was sent, but the CRM does not say so: ${shows}`);
      continue;
    }
    if (!sent && status === 'expired') {
      const told = decisionError !== '' || ledgerErrors.length > 0;
      if (!overtakenShown(d.kind, stage, counters[0]?.counter_offer_status, told))
        add(
          'undone',
          at,
          `${d.kind} overtaken by the offer's expiry, but the CRM does not show it: ${shows}`,
        );
      continue;
    }
    // The agent's accept of an offer whose counter waits: a service that does not take it refuses
    // it, and the refusal must be on the record (which shows where the offer is); one that takes it
    // must have carried it out unless the buyer answered the counter first.
    if (!sent && d.kind === 'accept' && counters.length > 0 && stage !== REQUESTED_STAGE[d.kind]) {
      const told = decisionError !== '' || ledgerErrors.length > 0;
      if (!told)
        add(
          'undone',
          at,
          `accept of a countered offer not carried out, and the CRM does not say why: ${shows}`,
        );
      else if (seen.countersAcceptable && counters[0].counter_offer_status === 'pending')
        add('undone', at, `accept of a countered offer refused at a service that takes it: ${shows}`);
      continue;
    }
    if (!sent) {
      if (stage === REQUESTED_STAGE[d.kind]) add('lost', at, `${d.kind} never sent; ${shows}`);
      else add('undone', at, `${d.kind} never sent and the record left ${REQUESTED_STAGE[d.kind]}; ${shows}`);
      continue;
    }
    // A decision the agent followed with another on the same record (a counter, then a reject or an
    // accept on second thoughts): sent once is all it owes; what the record shows, and any error on
    // it, are the later decision's.
    if (lastDecisions.get(d.recordId) !== d) continue;
    // A counter's later life (the buyer's answer, a cascade) is the wrong-state check's to judge, and
    // so is a reject of an offer the agent countered (it ends the counter: Counter rejected, or
    // Countered where the buyer had accepted it first).
    const shownAsDecided =
      d.kind === 'counter' || (d.kind === 'reject' && counters.length > 0)
        ? stage === 'countered' || stage === 'counterRejected'
        : status === expected.status && stage === expected.stage;
    if (!shownAsDecided) {
      add('undone', at, `${d.kind} sent, but the CRM shows it otherwise: ${shows}`);
      continue;
    }
    // A reject after a refused accept that the daemon never sent (the record's one decision command
    // is the accept, dead): the offer ended otherwise (the buyer refused the counter), and what the
    // record still says of the refused accept is true.
    const acceptRefusedOnly =
      d.kind === 'reject' &&
      world.decisions.some((x) => x.recordId === d.recordId && x.kind === 'accept') &&
      seen.ledger.outbox.some(
        (c) =>
          c.operation === 'decide_offer' &&
          (c.record_ref === d.recordId || c.record_ref.endsWith(`:${d.recordId}`)) &&
          c.state === 'dead',
      );
    const falseErrors = notAboutARefusedAccept(
      [...(decisionError ? [`CRM: ${decisionError}`] : []), ...ledgerErrors],
      acceptRefusedOnly,
    );
    if (acceptRefusedOnly && falseErrors.length === 0)
      seen.notes?.push(
        `${at}: the agent's reject after its refused accept was never sent (the offer had ended; on a CRM that keeps no stage history it may have been written over unread); the record still tells the accept's refusal`,
      );
    // A false error on a decided record tells the agent the decision failed: counted with the undone.
    if (falseErrors.length > 0)
      add('undone', at, `${d.kind} went through, but an error is open: ${quote(falseErrors.join(' | '))}`);
  }

  // An offer record the agent never moved has nothing to complain about.
  const decided = new Set(world.decisions.map((d) => d.recordId));
  for (const [offerId, records] of recordsOfOffer) {
    const offer = offerById.get(offerId);
    if (!offer || !ours.has(offer.offer_request_id)) continue;
    for (const record of records) {
      if (decided.has(record.id)) continue;
      const errors = [
        ...(text(record.properties.cash_offer_decision_error)
          ? [`CRM: ${text(record.properties.cash_offer_decision_error)}`]
          : []),
        ...errorsOf(record.id).map((e) => `ledger: ${e}`),
      ];
      if (errors.length > 0)
        add(
          'undone',
          `offer record ${record.id} (offer ${offerId})`,
          `an error is open on a record the agent never moved (${world.stageKeyOf(record.properties.dealstage)}, offer status ${offer.offer_status}): ${quote(errors.join(' | '))}`,
        );
    }
  }
  violations.push(...checkOfferStates(world, seen, ours, recordsOfOffer));
  return violations;
}

// Every offer of this run at the service: its CRM record shows the stage, offer status and counter
// status that the service's state implies (soak-offer-truth.ts), read from the service and the CRM
// only, never from the daemon's ledger.
function checkOfferStates(
  world: SoakWorld,
  seen: Observed,
  ours: Set<number>,
  recordsOfOffer: Map<string, CrmObject[]>,
): Violation[] {
  const violations: Violation[] = [];
  const counterOf = new Map(seen.counters.map((c) => [String(c.offer_id), c]));
  const offerById = new Map(seen.offers.map((o) => [String(o.offer_id), o]));
  const pending = new Map<string, AgentMove>();
  // Records of counters that ran out before they were sent: they may stay in Counter requested with
  // the refusal said on them (refused at the move), or show the service's state (refused at the send).
  const ranOut = new Set<string>();
  const recordById = new Map([...recordsOfOffer.values()].flat().map((r) => [r.id, r]));
  for (const d of lastDecisionPerRecord(world.decisions).values()) {
    const offer = offerById.get(d.offerId);
    // An accept of a countered offer the service refused (the decision check judged it): the move
    // waits for nothing any more, and the record shows the service's state.
    const refusedShown = text(recordById.get(d.recordId)?.properties.cash_offer_decision_error) !== '';
    if (d.kind === 'accept' && counterOf.has(d.offerId) && offer?.offer_status !== 'accepted' && refusedShown)
      continue;
    if (d.kind === 'counter' && !counterOf.has(d.offerId) && counterRanOut(d, seen.nowMs)) {
      ranOut.add(d.recordId);
      continue;
    }
    const done =
      d.kind === 'counter'
        ? counterOf.has(d.offerId)
        : offer?.offer_status === EXPECTED[d.kind].status ||
          // Rejecting an offer another decision rejected already has nothing left to do.
          (d.kind === 'reject' && offer?.offer_status === 'rejected');
    // An offer that ran out before the decision reached it waits for nothing any more.
    if (!done && offer?.offer_status !== 'expired') pending.set(d.recordId, d.kind);
  }
  for (const offer of seen.offers) {
    if (!ours.has(offer.offer_request_id)) continue;
    const records = recordsOfOffer.get(String(offer.offer_id)) ?? [];
    if (records.length !== 1) continue; // lost or duplicate: counted above
    // An offer that ran out in the last moments is the daemon's next pass's: not judged yet (the
    // settle does not wait for every clock, soak-clocks.ts).
    if (
      offer.offer_status === 'expired' &&
      Date.parse(offer.offer_expires ?? '') > seen.nowMs - TASK_GRACE_MS
    )
      continue;
    const record = records[0];
    const counter = counterOf.get(String(offer.offer_id));
    // Likewise a counter that lapsed in the last moments (spec reading counterLapse).
    if (
      counter?.counter_offer_status === 'expired' &&
      Date.parse(counter.counter_offer_expires ?? '') > seen.nowMs - TASK_GRACE_MS
    )
      continue;
    // The counter the agent made: the amount the service holds, and never another counter's id (an id
    // is blank where the service's answer gave none and no later listing or UPDATE named it).
    if (counter) {
      const shownId = text(record.properties.cash_offer_counter_offer_id);
      const shownAmount = text(record.properties.cash_offer_counter_amount);
      const wrong = [
        ...(shownId !== '' && shownId !== String(counter.counter_offer_id)
          ? [`counter id ${quote(shownId)}`]
          : []),
        ...(counter.counter_offer_amount !== undefined && shownAmount !== String(counter.counter_offer_amount)
          ? [`counter amount ${quote(shownAmount)}`]
          : []),
      ];
      if (wrong.length > 0)
        violations.push({
          kind: 'wrong state',
          record: `offer ${offer.offer_id} (request ${offer.offer_request_id}, record ${record.id})`,
          detail: `the CRM shows ${wrong.join(', ')}; the service holds counter ${counter.counter_offer_id} for ${counter.counter_offer_amount}`,
        });
    }
    const stage = expectedOfferRecord({
      offerStatus: offer.offer_status,
      counterStatus: counter?.counter_offer_status,
      fromAcceptedCounter: offer.offer_is_counter_offer === true,
      pendingMove: pending.get(record.id),
    });
    // The stage follows what the service stores; the status property shows the word its API lists
    // (the daemon can know no other), or the stored one where the API lists the offer no more.
    const expected = { ...stage, offerStatus: seen.listed?.get(offer.offer_id) ?? stage.offerStatus };
    const shown = {
      stage: world.stageKeyOf(record.properties.dealstage),
      offerStatus: text(record.properties.cash_offer_offer_status),
      counterStatus: text(record.properties.cash_offer_counter_status),
    };
    if (
      ranOut.has(record.id) &&
      shown.stage === 'counterRequested' &&
      text(record.properties.cash_offer_decision_error) !== ''
    )
      continue;
    const differs =
      shown.stage !== expected.stage ||
      shown.offerStatus !== expected.offerStatus ||
      (expected.counterStatus !== null &&
        !counterWordShown(expected.counterStatus, shown.counterStatus, seen));
    if (!differs) continue;
    const move = pending.get(record.id);
    // A counter rejected beside an accepted offer of the same request may have been withdrawn by that
    // acceptance (no UPDATE callback) rather than refused by the buyer: said, since the daemon hears
    // of the two differently.
    const acceptedBeside = seen.offers.find(
      (o) =>
        o.offer_request_id === offer.offer_request_id &&
        o.offer_id !== offer.offer_id &&
        o.offer_status === 'accepted',
    );
    if (
      !move &&
      !acceptedBeside &&
      counter?.counter_offer_status === 'rejected' &&
      (seen.refusalsOnlyByUpdateLost?.has(`counter:${counter.counter_offer_id}`) ||
        seen.refusalsOnlyByUpdateLost?.has(`offer:${offer.offer_id}`))
    ) {
      seen.notes?.push(
        `not counted: offer ${offer.offer_id} (record ${record.id}) shows stage ${shown.stage}, counter ${quote(shown.counterStatus)}; its counter ${counter.counter_offer_id} was refused, and the UPDATE, the only word of it under these readings, was given up by the service`,
      );
      continue;
    }
    const unknowable = counter ? seen.refusalsUnknowable?.get(counter.counter_offer_id) : undefined;
    if (!move && !acceptedBeside && unknowable !== undefined) {
      seen.notes?.push(
        `not counted: offer ${offer.offer_id} (record ${record.id}) shows stage ${shown.stage}, counter ${quote(shown.counterStatus)}; its counter ${counter!.counter_offer_id} was refused, ${unknowable}`,
      );
      continue;
    }
    if (
      !move &&
      counter &&
      refusalReadAsLapse(counter, shown.counterStatus, seen.nowMs, seen.updatesGivenUp ?? new Set())
    ) {
      seen.notes?.push(
        `not counted: offer ${offer.offer_id} (record ${record.id}) shows counter ${quote(shown.counterStatus)}; its counter ${counter.counter_offer_id} was refused and the UPDATE given up by the service, so the listings alone told of it, after the counter's own expiry: a lapse reads the same (docs/spec-decisions.md)`,
      );
      continue;
    }
    const why =
      counter?.counter_offer_status === 'rejected'
        ? acceptedBeside
          ? ` (offer ${acceptedBeside.offer_id} of the request is accepted)`
          : ' (no offer of the request is accepted: the buyer rejected it)'
        : '';
    violations.push({
      kind: 'wrong state',
      record: `offer ${offer.offer_id} (request ${offer.offer_request_id}, record ${record.id})`,
      detail:
        `the CRM shows stage ${shown.stage}, offer status ${quote(shown.offerStatus)}, counter status ${quote(shown.counterStatus)}; ` +
        `the service says offer ${offer.offer_status}, counter ${counter ? `${counter.counter_offer_id} ${counter.counter_offer_status}${why}` : 'none'}` +
        `${offer.offer_is_counter_offer ? ' (the offer of an accepted counter)' : ''}${move ? `, the agent's ${move} not yet at the service` : ''}; ` +
        `expected stage ${expected.stage}, offer status ${quote(expected.offerStatus)}, counter status ${expected.counterStatus === null ? 'any' : quote(expected.counterStatus)}`,
    });
  }
  return violations;
}

// A decision the offer's expiry overtook (listed `expired`) is shown when its record is where the
// offer is, Expired, or Counter rejected where our counter ran out with it (docs/crm-mapping.md), and
// an accept or a counter that could not be made says so (`told`); a reject has what it wanted.
export function overtakenShown(
  kind: Decision['kind'],
  stage: string,
  counterStatus: string | undefined,
  told: boolean,
): boolean {
  const where = expectedOfferRecord({ offerStatus: 'expired', counterStatus, fromAcceptedCounter: false });
  return stage === where.stage && (kind === 'reject' || told);
}

// A counter its buyer refused, whose UPDATE the service gave up delivering, shown `expired`: with no
// word but the listings, a refusal first read after the counter's own expiry is what a lapse looks
// like (offerRecordView reads it so unless this service was seen keeping counters past expiry), and
// no connector can tell the two apart.
export function refusalReadAsLapse(
  counter: Pick<
    StoredCounter,
    'counter_offer_id' | 'offer_id' | 'counter_offer_status' | 'counter_offer_expires'
  >,
  shownCounterStatus: string,
  nowMs: number,
  givenUp: ReadonlySet<string>,
): boolean {
  const expires = Date.parse(counter.counter_offer_expires ?? '');
  return (
    counter.counter_offer_status === 'rejected' &&
    shownCounterStatus === 'expired' &&
    Number.isFinite(expires) &&
    expires <= nowMs &&
    (givenUp.has(`counter:${counter.counter_offer_id}`) || givenUp.has(`offer:${counter.offer_id}`))
  );
}

// The counter's own expiry had passed by the check, and no counter reached the service.
function counterRanOut(d: Decision, nowMs: number): boolean {
  return d.kind === 'counter' && d.counterExpiresMs !== undefined && d.counterExpiresMs <= nowMs;
}

// Each record's last decision by the agent (a refused accept may be followed by a reject).
// The errors on a record that would tell the agent its last decision failed. Where that decision is
// a reject the daemon never sent after the agent's accept was refused, the accept's refusal ("did
// not accept offer N", "An earlier request on this offer was refused") is true and kept off the
// list: a CI soak on Follow Up Boss (seed 20261124) saw the agent's reject written over unread in
// the same instant the daemon showed the offer ended (docs/crm-followupboss.md, no stage history).
export function notAboutARefusedAccept(errors: readonly string[], acceptRefusedOnly: boolean): string[] {
  if (!acceptRefusedOnly) return [...errors];
  return errors.filter(
    (e) => !/did not accept offer \d+|An earlier request on this offer was refused/.test(e),
  );
}

function lastDecisionPerRecord(decisions: readonly Decision[]): Map<string, Decision> {
  const last = new Map<string, Decision>();
  for (const d of decisions) last.set(d.recordId, d);
  return last;
}

// Whether a record shows the counter status the service holds (`expected`, in the sandbox's own
// words): the same word, or the word the service's API gave it where that differs (the pending
// word of a counter's answer, the refusal word of its UPDATE), which the daemon shows as sent.
export function counterWordShown(
  expected: string,
  shown: string,
  seen: { counterPendingWord?: string; counterRefusedWord?: string },
): boolean {
  if (shown === expected) return true;
  if (expected === 'pending') return shown === seen.counterPendingWord;
  if (expected === 'rejected') return shown === seen.counterRefusedWord;
  return false;
}

// A complete offers pass began in [fromMs, toMs): it read whatever GET /offers listed then.
function passBeganBetween(passes: readonly { startedMs: number }[], fromMs: number, toMs: number): boolean {
  return passes.some((p) => p.startedMs >= fromMs && p.startedMs < toMs);
}

// Offers no reader of the service could have seen: under readings where an offer past its expiry
// drops from GET /offers and an event is sent once, never again (expiredOfferListedAs: dropped,
// eventDelivery: once), an offer that expired undecided, whose new_offer event never reached the
// daemon (it was down, or a fault swallowed it), and during whose listed life (made to expiry) no
// complete offers pass began: a daemon killed every few seconds may finish none for a minute. Such an
// offer leaves no trace anywhere the daemon can read; each is given with why.
export function unseeableOffers(
  offers: readonly {
    offer_id: number;
    offer_status: string;
    created_at?: string | null;
    offer_expires?: string | null;
  }[],
  facts: {
    expiredDropAndEventsOnce: boolean;
    delivered: ReadonlySet<number>;
    passes: readonly { startedMs: number; finishedMs: number }[];
  },
): Map<number, string> {
  const unseeable = new Map<number, string>();
  if (!facts.expiredDropAndEventsOnce) return unseeable;
  for (const offer of offers) {
    if (offer.offer_status !== 'expired' || facts.delivered.has(offer.offer_id)) continue;
    const madeMs = Date.parse(offer.created_at ?? '');
    const expiresMs = Date.parse(offer.offer_expires ?? '');
    if (!Number.isFinite(madeMs) || !Number.isFinite(expiresMs)) continue;
    if (passBeganBetween(facts.passes, madeMs, expiresMs)) continue;
    unseeable.set(
      offer.offer_id,
      `listed from ${new Date(madeMs).toISOString()} to its expiry at ${new Date(expiresMs).toISOString()}, when it dropped from GET /offers; its one new_offer event never reached the daemon, and no complete offers pass began in that time`,
    );
  }
  return unseeable;
}

// Counters whose refusal no reader could have told from a countered offer waiting: under readings
// where no UPDATE comes (counterRejectedCallback none) and a refused counter's offer is listed
// `active` again, or `rejected`, only the move from the service's waiting word (`countered`) to that
// word tells a refusal, and only to a daemon that has seen a counter waiting under the waiting word.
// Where every counter was refused before any complete offers pass began while it waited, and the
// daemon's ledger shows no counter ever read `countered` (its send's own read included), each refused
// counter's offer looked to the daemon as a countered offer does on a service that lists one so
// (`active`, or `rejected` at once: docs/spec-decisions.md). Each is given with why.
export function refusalsUnknowable(
  counters: readonly {
    counter_offer_id: number;
    counter_offer_status: string;
    created_at?: string | null;
    updated_at?: string | null;
  }[],
  facts: {
    // The word a refused counter's offer is listed under, where only the move to it from the
    // service's waiting word tells a refusal; undefined where the readings tell one otherwise.
    refusalOnlyByMoveTo: 'active' | 'rejected' | undefined;
    passes: readonly { startedMs: number; finishedMs: number }[];
    countersSeenWaiting: number;
  },
): Map<number, string> {
  const unknowable = new Map<number, string>();
  const word = facts.refusalOnlyByMoveTo;
  if (word === undefined || facts.countersSeenWaiting > 0) return unknowable;
  const seenWaiting = counters.some((c) => {
    const madeMs = Date.parse(c.created_at ?? '');
    const answeredMs = c.counter_offer_status === 'pending' ? Infinity : Date.parse(c.updated_at ?? '');
    return facts.passes.some((p) => p.startedMs >= madeMs && p.finishedMs <= answeredMs);
  });
  if (seenWaiting) return unknowable;
  for (const c of counters) {
    if (c.counter_offer_status !== 'rejected') continue;
    unknowable.set(
      c.counter_offer_id,
      `at ${c.updated_at ?? 'an unknown time'}, with no UPDATE under these readings and its offer listed ${word === 'active' ? 'active again' : 'rejected'}; no counter of the brokerage waited through a complete offers pass, and the daemon's ledger shows none read waiting, so nothing showed how this service lists a countered offer (it may list one ${word === 'active' ? 'active' : 'rejected at once'})`,
    );
  }
  return unknowable;
}

// Offers whose decision time no reader could have seen: under a reading where an offer past its
// expiry drops from GET /offers (expiredOfferListedAs: dropped), an offer that ended expired, whose
// `offer_decided_at` (the service stamps a counter's arrival there) was listed only from that moment
// until it dropped (its own expiry, or its counter's where the counter lapsed with it), and in which
// time no complete offers pass began. No event carries the decision time, and a counter answered
// 502 after the service took it gives no read of the offer either. Each is given with why.
export function decidedAtUnseeable(
  offers: readonly {
    offer_id: number;
    offer_status: string;
    offer_expires?: string | null;
    offer_decided_at?: string | null;
  }[],
  counters: readonly {
    offer_id: number;
    counter_offer_status: string;
    counter_offer_expires?: string | null;
  }[],
  facts: { expiredDrops: boolean; passes: readonly { startedMs: number; finishedMs: number }[] },
): Map<number, string> {
  const unseeable = new Map<number, string>();
  if (!facts.expiredDrops) return unseeable;
  for (const offer of offers) {
    const decidedMs = Date.parse(offer.offer_decided_at ?? '');
    if (offer.offer_status !== 'expired' || !Number.isFinite(decidedMs)) continue;
    const ends = [
      Date.parse(offer.offer_expires ?? ''),
      ...counters
        .filter((c) => c.offer_id === offer.offer_id && c.counter_offer_status === 'expired')
        .map((c) => Date.parse(c.counter_offer_expires ?? '')),
    ].filter(Number.isFinite);
    if (ends.length === 0) continue;
    const endMs = Math.min(...ends);
    if (passBeganBetween(facts.passes, decidedMs, endMs)) continue;
    unseeable.set(
      offer.offer_id,
      `decided at ${new Date(decidedMs).toISOString()}, dropped from GET /offers at ${new Date(endMs).toISOString()} when it expired, and no complete offers pass began in that time`,
    );
  }
  return unseeable;
}

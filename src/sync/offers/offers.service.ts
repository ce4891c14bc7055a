import { Injectable, Logger } from '@nestjs/common';
import type { BrokerageCrm } from '../../brokerages/brokerage-crm';
import type { CashOfferClient } from '../../cash-offer';
import type { Offer } from '../../cash-offer/schema';
import { Clock } from '../../common/clock';
import {
  CASH_OFFERS_PIPELINE,
  UNIQUE_OFFER_ID,
  type CrmAssociationPair,
  type CrmUpsertInput,
} from '../../crm';
import {
  LedgerTurns,
  LinkRepository,
  RecordErrorRepository,
  type LinkClass,
  type LinkInput,
} from '../../ledger';
import { MetricsService } from '../../observability/metrics/metrics.service';
import { emptyCounts, type JobCounts } from '../../scheduler/job.types';
import { contentHash } from '../common/content-hash';
import { errorMessage } from '../common/job-counts';
import { DEAL, LINK } from '../common/listing-deal.properties';
import { readRequestOffers, SharedBookRead, type OffersRead } from '../common/offer-pages';
import { DecisionHistoryRecorder, type ShownOffer } from '../history/decision-history.recorder';
import { RequestStatusService } from '../request-status/request-status.service';
import { alreadyIn, HeldStages, type StageMove } from './held-stages.service';
import { counterListingHabit, refusalListingsTold } from './counter-listing-habit';
import { mapOfferToCrm, type OfferCrmInput, type OfferCrmRecord } from './offer-crm.mapper';
import { OfferSummaries, type OfferSummary } from './offer-summary';
import {
  counterCrmId,
  countersOutliveExpiry,
  countersOutliveSellerReject,
  decodeCounterLink,
  encodeCounterLink,
  otherCountersOf,
  refusalListingTeaches,
  settledListedAtSend,
  showsOutlivedExpiry,
  type CounterLinkContent,
} from './counter-link';
import { OFFER, offerStageId } from './offer-record.properties';
import { unconfirmedCrmId } from '../common/unconfirmed-crm-id';
import { offerSeenContent } from './offer-seen';
import { linkedRequestIds } from './linked-requests';
import { isAnsweredCounter, isRefusedCounter, learnCounter, mayStillBeAnswered } from './offer-record.view';
import { ranOutBy } from '../common/expiry';

// The content of a link whose record's content is not known: no hash equals it.
const CONTENT_UNKNOWN = 'unknown';

function groupByRequest(offers: readonly Offer[]): Map<number, Offer[]> {
  const groups = new Map<number, Offer[]>();
  for (const offer of offers) {
    const group = groups.get(offer.offer_request_id) ?? [];
    group.push(offer);
    groups.set(offer.offer_request_id, group);
  }
  return groups;
}

// The requests among `byRequest` with a counter of ours the buyer has not answered (or may still
// answer, the seller's reject having perhaps left it standing). Not once the page shows an accepted
// offer there: its cascade ended every counter on the request.
function requestsAwaitingCounter(
  byRequest: ReadonlyMap<number, Offer[]>,
  counters: ReadonlyMap<string, CounterLinkContent>,
): number[] {
  return [...byRequest]
    .filter(
      ([, group]) =>
        !group.some((o) => o.offer_status === 'accepted') &&
        group.some((o) => {
          const counter = counters.get(String(o.offer_id));
          return counter !== undefined && mayStillBeAnswered(counter);
        }),
    )
    .map(([requestId]) => requestId);
}

export interface ApplyOptions {
  runId?: number | null;
  dryRun?: boolean;
  // When the offers were read from the service (OffersRead.readAt). An offer read before the data
  // its record shows is not written: counted unchanged, logged at debug. Undefined: written as
  // before read times were kept.
  readAt?: Date;
  // When that read's answer came (OffersRead.answeredAt): what a counter's lapse is judged by.
  answeredAt?: Date;
  // Every offer of one request, for a caller that reads the offers a page at a time (the reconcile):
  // a page holds only part of a request's offers, and what an offer with our counter on it shows
  // depends on the others (the buyer's accepting offer, the cascade), so such a request's offers
  // are read whole. Undefined: the offers given are the whole request's (an event's re-read).
  requestOffersOf?: (requestId: number) => Promise<Offer[]>;
}

interface Written {
  counts: JobCounts;
  // Offers not written: read before what their records show.
  stale: Set<string>;
}

function summariesOf(read: OffersRead): OfferSummaries {
  const summaries = new OfferSummaries();
  for (const offer of read.offers) summaries.add(offer, read.readAt);
  return summaries;
}

// Flow 4: one CRM offer record per offer, upserted on the offer id, associated with the listing
// deal and the seller contact; the listing deal shows the offer count and the best offer. A record
// whose content hash is unchanged costs no CRM write. Only offers on requests this brokerage's ledger
// links are written. An offer record is placed in a stage only when it is created: every job that
// writes offer records (events, reconcile, decisions) takes its turn per brokerage (`LedgerTurns`:
// in this process and, on PostgreSQL, across every worker, which run a brokerage's jobs side by
// side), and a record the ledger does not link yet is looked up in the CRM first, so no job ever
// mistakes a record an agent has moved for a new one. Inside the turn, writes are ordered by when
// their data was read, not by when they arrive: a writer that read the service before another one
// that has written since (it waited its turn) leaves the newer record alone (ApplyOptions.readAt).
@Injectable()
export class OffersService {
  private readonly logger = new Logger(OffersService.name);
  // Per brokerage client, the last read of one request's offers that brought the whole book.
  private readonly bookReads = new WeakMap<CashOfferClient, SharedBookRead>();

  constructor(
    private readonly turns: LedgerTurns,
    private readonly links: LinkRepository,
    private readonly recordErrors: RecordErrorRepository,
    private readonly status: RequestStatusService,
    private readonly metrics: MetricsService,
    private readonly history: DecisionHistoryRecorder,
    private readonly clock: Clock,
    private readonly heldStages: HeldStages,
  ) {}

  // Offers of any requests (one page of GET /offers, or one request's offers).
  async applyOffers(crm: BrokerageCrm, offers: Offer[], options: ApplyOptions = {}): Promise<JobCounts> {
    const requestOffersOf = await this.readAheadOfTurn(crm.brokerageId, offers, options.requestOffersOf);
    const { counts } = await this.turns.run(this.turnOf(crm), () =>
      this.writeOffers(crm, offers, { ...options, requestOffersOf }),
    );
    return counts;
  }

  // The service is read before the turn, not in it: every writer of the brokerage's offer records
  // waits on the turn, on every worker, and a read that hangs or is retried (11 s hangs and 429s in
  // readings sweep 1572) held the agent's decisions up for 47 s while a reconcile completed its
  // countered requests. A request whose counter was linked after this read (a counter sent meanwhile)
  // is still read in the turn, as before.
  private async readAheadOfTurn(
    brokerageId: string,
    offers: Offer[],
    requestOffersOf: ApplyOptions['requestOffersOf'],
  ): Promise<ApplyOptions['requestOffersOf']> {
    if (!requestOffersOf) return undefined;
    // Only offers on this brokerage's own requests carry its counters: no need to sort them out first.
    const counters = await this.countersOn(brokerageId, offers);
    const read = new Map<number, Offer[]>();
    for (const requestId of requestsAwaitingCounter(groupByRequest(offers), counters))
      read.set(requestId, await requestOffersOf(requestId));
    return (requestId) => {
      const ahead = read.get(requestId);
      return ahead ? Promise.resolve(ahead) : requestOffersOf(requestId);
    };
  }

  // Requests on this page with a counter of ours the buyer has not answered (or may still answer):
  // their offers read whole (the page's own copies kept: they are what this read writes).
  private async completeCounteredRequests(
    byRequest: Map<number, Offer[]>,
    counters: ReadonlyMap<string, CounterLinkContent>,
    requestOffersOf: ApplyOptions['requestOffersOf'],
  ): Promise<void> {
    if (!requestOffersOf) return;
    for (const requestId of requestsAwaitingCounter(byRequest, counters)) {
      const group = byRequest.get(requestId) ?? [];
      const onPage = new Set(group.map((o) => o.offer_id));
      const others = (await requestOffersOf(requestId)).filter((o) => !onPage.has(o.offer_id));
      byRequest.set(requestId, [...group, ...others]);
    }
  }

  private turnOf(crm: BrokerageCrm): string {
    return `offers:${crm.brokerageId}`;
  }

  private async writeOffers(crm: BrokerageCrm, offers: Offer[], options: ApplyOptions): Promise<Written> {
    const counts = emptyCounts();
    counts.read = offers.length;
    const ours = await this.onLinkedRequests(crm.brokerageId, offers);
    // Read, nothing to write: an offer on a request no listing deal of ours is linked to (yet).
    counts.unchanged += offers.length - ours.length;
    const byRequest = groupByRequest(ours);
    const counters = await this.countersOn(crm.brokerageId, ours);
    await this.completeCounteredRequests(byRequest, counters, options.requestOffersOf);
    const readAt = options.readAt ?? this.clock.now();
    const answeredAt = options.answeredAt ?? readAt;
    const shownAsWas = await this.lapsedCountersShownAsWas(crm.brokerageId, ours, counters, answeredAt);
    // Asked only when a counter here is past its expiry: the one case it decides.
    const outlive = shownAsWas.size > 0 && (await countersOutliveExpiry(this.links, crm.brokerageId));
    const refusalListings =
      shownAsWas.size > 0 ? await refusalListingsTold(this.links, crm.brokerageId) : undefined;
    const outliveReject = await this.outliveSellerReject(crm.brokerageId, counters.values());
    const mapped = ours.map((offer) => ({
      offer,
      record: this.recordWith(offer, byRequest.get(offer.offer_request_id) ?? [offer], counters, readAt, {
        answeredAt,
        shownAsWasAt: shownAsWas.get(String(offer.offer_id)),
        countersOutliveExpiry: outlive,
        refusalListings,
        countersOutliveSellerReject: outliveReject,
      }),
    }));
    const items = mapped.map((m) => ({
      ...m,
      hash: contentHash({ p: m.record.properties, s: m.record.stage }),
    }));
    const classes = await this.links.classify(
      crm.brokerageId,
      LINK.offer,
      items.map((i) => ({ remoteId: i.record.key, contentHash: i.hash, readAt: options.readAt })),
    );
    const keysIn = (wanted: LinkClass) =>
      items.filter((i) => classes.get(i.record.key) === wanted).map((i) => i.record.key);
    const toWrite = items.filter((i) => {
      const kind = classes.get(i.record.key);
      return kind === 'new' || kind === 'changed';
    });
    const [unchanged, stale] = [keysIn('unchanged'), keysIn('stale')];
    counts.unchanged += items.length - toWrite.length;
    if (stale.length > 0)
      this.logger.debug(
        `${crm.brokerageId}: offer(s) ${stale.join(', ')} not written: read at ${options.readAt?.toISOString()}, before what their records show`,
      );
    if (options.runId)
      await this.links.markSeen(crm.brokerageId, LINK.offer, [...unchanged, ...stale], options.runId);
    // An unchanged record shows data at least as new as this read.
    if (options.readAt && !options.dryRun)
      await this.links.noteRead(crm.brokerageId, LINK.offer, unchanged, options.readAt);
    if (!options.dryRun)
      await this.noteOutlived(
        crm.brokerageId,
        items.filter((i) => classes.get(i.record.key) !== 'stale').map((i) => i.record),
        counters,
        readAt,
      );
    if (options.dryRun || toWrite.length === 0) {
      for (const i of toWrite) counts[classes.get(i.record.key) === 'new' ? 'created' : 'updated'] += 1;
      return { counts, stale: new Set(stale) };
    }
    const pipelineId = crm.stages.pipelineId(CASH_OFFERS_PIPELINE);
    const inCrm = await this.existingRecords(
      crm,
      toWrite.filter((i) => classes.get(i.record.key) === 'new').map((i) => i.record.key),
    );
    const isNew = (i: (typeof toWrite)[number]) =>
      classes.get(i.record.key) === 'new' && !inCrm.has(i.record.key);
    // A record the agent put in a "… requested" stage keeps it while that request waits (before, a
    // buyer's refusal written between the agent's reject and the decision consumer's read moved the
    // record to Counter rejected, and the reject was lost): its properties are written, not its stage.
    const { held, placed } = await this.heldStages.among(
      crm,
      toWrite.filter((i) => !isNew(i) && !i.record.stageOnCreateOnly).map((i) => i.record.key),
    );
    const inputs: CrmUpsertInput[] = toWrite.map((i) => {
      const stageId = offerStageId(crm.stages, i.record.stage);
      // A record already in its stage is not moved: nothing an agent did meanwhile is written over.
      const placeStage =
        isNew(i) ||
        (!i.record.stageOnCreateOnly &&
          !held.has(i.record.key) &&
          !alreadyIn(placed.get(i.record.key), pipelineId, stageId));
      return {
        key: i.record.key,
        properties: i.record.properties,
        pipelineId,
        ...(placeStage ? { stageId } : {}),
        // Moving a record the agent may be moving too: never sent again after a lost answer.
        ...(placeStage && !isNew(i) ? { moveSentOnce: true } : {}),
        ...(isNew(i) && i.record.stageOnCreateOnly ? { stageOnCreateOnly: true } : {}),
      };
    });
    await this.links.forgetContent(crm.brokerageId, LINK.offer, keysIn('changed'), options.readAt);
    // A first record's placeholder, to find it by should its answer be lost and its offer leave the
    // list before another read lists it (UnconfirmedOffers).
    await this.links.upsertLinks(
      crm.brokerageId,
      LINK.offerUnconfirmed,
      toWrite.filter(isNew).map((i) => ({
        remoteId: i.record.key,
        crmId: unconfirmedCrmId(i.record.key),
        contentHash: offerSeenContent(i.offer),
      })),
    );
    const results = await crm.port.upsertRecords('deal', UNIQUE_OFFER_ID, inputs);
    // Moves of existing records: an agent's move made between the held-stage read and this write is
    // put back (HeldStages.putBackOverwritten).
    const moves: StageMove[] = [];
    for (const [n, result] of results.entries()) {
      const { moveSentOnce, stageId } = inputs[n];
      const key = toWrite[n].record.key;
      if (result.ok && moveSentOnce && stageId !== undefined)
        moves.push({ offerKey: key, recordId: result.id, stageId, stageIdRead: placed.get(key)?.stageId });
    }
    for (const [key, stage] of await this.heldStages.putBackOverwritten(crm, moves)) held.set(key, stage);
    const written: LinkInput[] = [];
    const created: { key: string; offer: Offer; crmId: string }[] = [];
    const shown: ShownOffer[] = [];
    const changes: string[] = [];
    for (const [n, result] of results.entries()) {
      const item = toWrite[n];
      if (!result.ok) {
        counts.failed += 1;
        await this.recordErrors.record({
          brokerageId: crm.brokerageId,
          recordKind: 'offer',
          recordRef: item.record.key,
          message: `offer ${item.record.key} could not be written to the CRM: ${errorMessage(result.error)}`,
          code: result.error.code,
        });
        continue;
      }
      written.push({
        remoteId: item.record.key,
        crmId: result.id,
        contentHash: item.hash,
        runId: options.runId ?? undefined,
        readAt: options.readAt,
      });
      if (classes.get(item.record.key) === 'new')
        created.push({ key: item.record.key, offer: item.offer, crmId: result.id });
      // An undecided or lapsed offer only places a new record: an existing one keeps the stage it is in.
      const leftAsItWas = inputs[n].stageId === undefined && item.record.stageOnCreateOnly;
      shown.push({
        offer: item.offer,
        crmId: result.id,
        created: classes.get(item.record.key) === 'new',
        stage: held.get(item.record.key) ?? (leftAsItWas ? null : item.record.stage),
        counterId: item.record.properties[OFFER.counterId] ?? null,
        counterStatus: item.record.properties[OFFER.counterStatus] ?? null,
      });
      counts[classes.get(item.record.key) === 'new' ? 'created' : 'updated'] += 1;
      const stage = held.has(item.record.key)
        ? `stage ${held.get(item.record.key)} kept: the agent's request waits; it would show ${item.record.stage}`
        : leftAsItWas
          ? `stage left as it was; ${item.record.stage} only places a new record`
          : `stage ${item.record.stage}`;
      changes.push(
        `offer ${item.record.key} ${classes.get(item.record.key) === 'new' ? 'created as' : 'updated on'} CRM record ${result.id} (${stage})`,
      );
      await this.recordErrors.resolve(crm.brokerageId, 'offer', item.record.key);
    }
    // Associations first: a crash before the links are saved re-runs them (they are idempotent). A
    // new record whose associations the CRM could not make for now (an outage, its breaker open) is
    // not linked either: the next writer finds it by its offer id, leaves its stage, and associates
    // it then. Linked, it would stand apart from its listing deal and seller for good.
    const unassociated = await this.associate(crm, created);
    const linked = (key: string) => !unassociated.has(key);
    await this.learnCounters(
      crm.brokerageId,
      toWrite.map((i) => ({
        record: i.record,
        offer: i.offer,
        requestOffers: byRequest.get(i.offer.offer_request_id) ?? [i.offer],
      })),
      counters,
      answeredAt,
    );
    await this.links.upsertLinks(
      crm.brokerageId,
      LINK.offer,
      written.filter((w) => linked(w.remoteId)),
      this.history.shownEntries(
        crm.brokerageId,
        shown.filter((s) => linked(String(s.offer.offer_id))),
        ours,
      ),
    );
    // One line per record that changed, once the ledger holds it: what an operator reads the log for.
    for (const change of changes) this.logger.log(`${crm.brokerageId}: ${change}`);
    this.metrics.recordsSyncedInRun(crm.brokerageId, 'offers', counts);
    return { counts, stale: new Set(stale) };
  }

  // Re-reads one request's offers from the service and brings their records and the listing deal
  // in step: how an event lands in the CRM. The service's list is the truth; an event only says
  // which request to read. `notBefore`: the read may be one already made, if asked for no earlier
  // (the event's receipt), where the service answers every such read with the whole book.
  async refreshRequest(
    crm: BrokerageCrm,
    client: CashOfferClient,
    requestId: number,
    notBefore?: Date,
  ): Promise<{ counts: JobCounts; offers: Offer[] }> {
    const read = await this.bookReadOf(client).requestOffers(requestId, notBefore);
    const counts = await this.applyOffers(crm, read.offers, timesOf(read));
    await this.applySummaries(crm, summariesOf(read));
    return { counts, offers: read.offers };
  }

  private bookReadOf(client: CashOfferClient): SharedBookRead {
    let shared = this.bookReads.get(client);
    if (!shared) this.bookReads.set(client, (shared = new SharedBookRead(client, this.clock)));
    return shared;
  }

  // The CRM record of an offer the service no longer lists, by its id, linked. A record a stop cut
  // from its link (created in the CRM, killed before the link was saved) is found by its offer id and
  // linked now, so the next complete reconcile shows what became of the offer (UnlistedOffers): past
  // its expiry, Expired, not Incoming for ever. Its content is left unknown, so a read that lists the
  // offer again writes it in full. The same stop cut its associations and its history entry: they are
  // made now, from the event's copy of the offer (its request finds the listing deal and seller).
  // Only a record the daemon wrote from a listing read can be found here. Undefined: the CRM holds none.
  async recordOfUnlistedOffer(crm: BrokerageCrm, claimed: Offer): Promise<string | undefined> {
    const key = String(claimed.offer_id);
    return this.turns.run(this.turnOf(crm), async () => {
      const link = await this.links.find(crm.brokerageId, LINK.offer, key);
      if (link) return link.crmId;
      const [record] = await crm.port.findByUniqueValues('deal', UNIQUE_OFFER_ID, [key], [UNIQUE_OFFER_ID]);
      if (!record) return undefined;
      const unassociated = await this.associate(crm, [{ key, offer: claimed, crmId: record.id }]);
      if (unassociated.has(key))
        throw new Error(
          `offer ${key}: its CRM record ${record.id} could not be associated with its listing deal for now; tried again later`,
        );
      const made = mapOfferToCrm({ offer: claimed });
      const shown: ShownOffer = {
        offer: claimed,
        crmId: record.id,
        created: true,
        stage: made.stage,
        counterId: null,
        counterStatus: null,
      };
      await this.links.upsertLinks(
        crm.brokerageId,
        LINK.offer,
        [{ remoteId: key, crmId: record.id, contentHash: CONTENT_UNKNOWN }],
        this.history.shownEntries(crm.brokerageId, [shown], [claimed]),
      );
      this.logger.warn(
        `${crm.brokerageId}: offer ${key} is no longer listed and its CRM record ${record.id} had no ledger link (a stop between its create and its link); linked now`,
      );
      return record.id;
    });
  }

  // A decision's outcome (OfferRecordOutcome): the request's offers (`read` when the caller has just
  // read them) written, then `show` run with the record the decided offer maps to, in the same turn,
  // so no other writer comes between. When that offer was read before what its record shows
  // (another writer read and wrote while this one waited), the request is read again inside the
  // turn: nothing can be written between that read and its use, and an outcome places the record by
  // the service's latest word (the cascade of the decision, or where a refused one left the offer).
  async applyOutcome(
    crm: BrokerageCrm,
    client: CashOfferClient,
    target: { requestId: number; offerId: number },
    read: OffersRead | undefined,
    show: (record: OfferCrmRecord | undefined) => Promise<void>,
  ): Promise<OffersRead> {
    const first = read ?? (await readRequestOffers(client, this.clock, target.requestId));
    const shown = await this.turns.run(this.turnOf(crm), async () => {
      let current = first;
      const { stale } = await this.writeOffers(crm, current.offers, timesOf(current));
      if (stale.has(String(target.offerId))) {
        this.logger.debug(
          `${crm.brokerageId}: offer ${target.offerId} was read before what its record shows; read again to show the decision's outcome`,
        );
        current = await readRequestOffers(client, this.clock, target.requestId);
        await this.writeOffers(crm, current.offers, timesOf(current));
      }
      const offer = current.offers.find((o) => o.offer_id === target.offerId);
      await show(offer ? await this.recordOf(crm, offer, current.offers, current) : undefined);
      return current;
    });
    await this.applySummaries(crm, summariesOf(shown));
    return shown;
  }

  // The listing deal's offer count and best offer, and "under contract" once an offer is accepted.
  // The summaries are written in the offer records' turn, ordered by read time as they are.
  async applySummaries(
    crm: BrokerageCrm,
    summaries: OfferSummaries,
    options: ApplyOptions = {},
  ): Promise<number> {
    const all = summaries.all();
    if (all.length === 0) return 0;
    const written = await this.turns.run(this.turnOf(crm), async () => {
      let count = 0;
      for (const summary of all) if (await this.writeSummary(crm, summary, options)) count += 1;
      return count;
    });
    // An acceptance is shown as of when the service decided it (whatever the age of the read that saw
    // it), so a request reopened since, read again as active, is not moved back by the offer that is
    // still listed accepted. A service that gives no decision time: as of when a read first listed
    // the offer accepted (no later than the acceptance was known), else by rank (forward only).
    for (const summary of all) {
      if (!summary.accepted) continue;
      await this.status.apply(crm, summary.requestId, 'under_contract', {
        externalId: summary.externalId,
        dryRun: options.dryRun,
        readAt: summary.acceptedAt ?? (await this.firstListedAccepted(crm.brokerageId, summary, options)),
      });
    }
    return written;
  }

  // When a read first listed the summary's accepted offer accepted, kept once (the first read's time
  // stays). Not when a pass first listed the offer decided (LINK.offerDecision): a service that lists
  // a countered offer `rejected` lists it so before its seller accepts it, and the acceptance, dated
  // then, lost to the request's `active` read in between (full soak 20261252: the deal stayed active,
  // the request under contract).
  private async firstListedAccepted(
    brokerageId: string,
    summary: OfferSummary,
    options: ApplyOptions,
  ): Promise<Date | undefined> {
    if (summary.acceptedOfferId === undefined) return undefined;
    const offerId = String(summary.acceptedOfferId);
    const readAt = summary.acceptedReadAt ?? this.clock.now();
    const keptAt = async () => {
      const first = await this.links.find(brokerageId, LINK.offerAccepted, offerId);
      const at = first ? new Date(first.contentHash) : undefined;
      return at && !Number.isNaN(at.getTime()) ? at : undefined;
    };
    // Every pass lists an accepted offer again: written only the first time (another writer's first
    // stays).
    const known = await keptAt();
    if (known || options.dryRun) return known ?? readAt;
    await this.links.insertMissing(brokerageId, LINK.offerAccepted, [
      { remoteId: offerId, crmId: offerId, contentHash: readAt.toISOString() },
    ]);
    return (await keptAt()) ?? readAt;
  }

  private async writeSummary(
    crm: BrokerageCrm,
    summary: OfferSummary,
    options: ApplyOptions,
  ): Promise<boolean> {
    const dealId = await this.status.listingDealOf(crm.brokerageId, summary.requestId, summary.externalId);
    if (!dealId) return false;
    const properties = {
      [DEAL.offerCount]: String(summary.count),
      [DEAL.bestOffer]: summary.best === null ? null : String(summary.best),
    };
    const hash = contentHash(properties);
    const remoteId = String(summary.requestId);
    const { readAt } = summary;
    const found = await this.links.classify(crm.brokerageId, LINK.offerSummary, [
      { remoteId, contentHash: hash, readAt },
    ]);
    const kind = found.get(remoteId);
    if (kind === 'stale') {
      this.logger.debug(
        `${crm.brokerageId}: offer summary of request ${remoteId} not written: read at ${readAt?.toISOString()}, before what deal ${dealId} shows`,
      );
      return false;
    }
    if (options.dryRun) return false;
    if (kind === 'unchanged') {
      if (readAt) await this.links.noteRead(crm.brokerageId, LINK.offerSummary, [remoteId], readAt);
      return false;
    }
    if (kind === 'changed')
      await this.links.forgetContent(crm.brokerageId, LINK.offerSummary, [remoteId], readAt);
    const [result] = await crm.port.updateRecords('deal', [{ id: dealId, properties }]);
    if (result && !result.ok) {
      this.logger.warn(`deal ${dealId}: offer summary not written: ${errorMessage(result.error)}`);
      return false;
    }
    await this.links.upsertLinks(crm.brokerageId, LINK.offerSummary, [
      { remoteId, crmId: dealId, contentHash: hash, readAt },
    ]);
    return true;
  }

  // Offers whose request a listing deal of this brokerage is linked to in the ledger.
  private async onLinkedRequests(brokerageId: string, offers: Offer[]): Promise<Offer[]> {
    const linked = await linkedRequestIds(this.links, brokerageId, offers);
    return offers.filter((o) => linked.has(o.offer_request_id));
  }

  // Offer records already in the CRM although the ledger has no link for them: a crash after their
  // create and before their link. Their stage is the agent's now; they are updated, never re-placed.
  private async existingRecords(crm: BrokerageCrm, keys: string[]): Promise<Set<string>> {
    if (keys.length === 0) return new Set();
    const found = await crm.port.findByUniqueValues('deal', UNIQUE_OFFER_ID, keys, [UNIQUE_OFFER_ID]);
    return new Set(found.map((r) => r.properties[UNIQUE_OFFER_ID] ?? '').filter(Boolean));
  }

  // The record an offer maps to, with the counter the agent made on it and those made on the other
  // offers the service lists on its request (from the ledger, read once for them all).
  private async recordOf(
    crm: BrokerageCrm,
    offer: Offer,
    requestOffers: readonly Offer[],
    { readAt, answeredAt }: Pick<OffersRead, 'readAt' | 'answeredAt'>,
  ): Promise<OfferCrmRecord> {
    const counters = await this.countersOn(crm.brokerageId, [offer, ...requestOffers]);
    // Asked only when this offer's counter is past its expiry: the one case it decides.
    const counter = counters.get(String(offer.offer_id));
    const pastExpiry = counter !== undefined && ranOutBy(counter.expiresMs, (answeredAt ?? readAt).getTime());
    return this.recordWith(offer, requestOffers, counters, readAt, {
      answeredAt,
      countersOutliveExpiry: pastExpiry && (await countersOutliveExpiry(this.links, crm.brokerageId)),
      refusalListings: pastExpiry ? await refusalListingsTold(this.links, crm.brokerageId) : undefined,
      countersOutliveSellerReject: await this.outliveSellerReject(crm.brokerageId, [counter]),
    });
  }

  // Asked only when one of these counters was taken as ended by the seller's reject: the one case it
  // decides.
  private async outliveSellerReject(
    brokerageId: string,
    counters: Iterable<CounterLinkContent | undefined>,
  ): Promise<boolean> {
    const endedBySeller = [...counters].some((c) => c?.endedBySeller !== undefined);
    return endedBySeller && (await countersOutliveSellerReject(this.links, brokerageId));
  }

  // For the offers whose counter waits unanswered past its own expiry: the last read that showed
  // their record as it was (the ledger link's read time), which tells a refusal seen late from a
  // lapse (offerRecordView). A lookup only a counter past its expiry costs.
  private async lapsedCountersShownAsWas(
    brokerageId: string,
    offers: readonly Offer[],
    counters: ReadonlyMap<string, CounterLinkContent>,
    answeredAt: Date,
  ): Promise<Map<string, Date | null>> {
    const shown = new Map<string, Date | null>();
    for (const offer of offers) {
      const counter = counters.get(String(offer.offer_id));
      if (!counter || isAnsweredCounter(counter.status)) continue;
      if (!ranOutBy(counter.expiresMs, answeredAt.getTime())) continue;
      const link = await this.links.find(brokerageId, LINK.offer, String(offer.offer_id));
      shown.set(String(offer.offer_id), link?.readAt ?? null);
    }
    return shown;
  }

  private recordWith(
    offer: Offer,
    requestOffers: readonly Offer[],
    counters: ReadonlyMap<string, CounterLinkContent>,
    readAt: Date,
    seen: Pick<
      OfferCrmInput,
      | 'answeredAt'
      | 'shownAsWasAt'
      | 'countersOutliveExpiry'
      | 'refusalListings'
      | 'countersOutliveSellerReject'
    > = {},
  ): OfferCrmRecord {
    const counter = counters.get(String(offer.offer_id));
    if (!counter) return mapOfferToCrm({ offer, requestOffers });
    const onRequest = requestOffers
      .map((o) => ({ ...counters.get(String(o.offer_id)), offerId: String(o.offer_id) }))
      .filter((c): c is CounterLinkContent & { offerId: string } => c.status !== undefined);
    return mapOfferToCrm({
      offer,
      requestOffers,
      counter,
      otherCounters: otherCountersOf(onRequest, String(offer.offer_id)),
      readAt,
      ...seen,
    });
  }

  // What the ledger knows of the counters made on these offers, by offer id.
  private async countersOn(
    brokerageId: string,
    offers: readonly Offer[],
  ): Promise<Map<string, CounterLinkContent>> {
    const links = await this.links.findMany(
      brokerageId,
      LINK.counter,
      offers.map((o) => String(o.offer_id)),
    );
    const counters = [...links].map(([offerId, link]) => [offerId, decodeCounterLink(link)] as const);
    const readAs = (listed: string) =>
      counters.filter(([, counter]) => counter.listedAtSend === listed).map(([offerId]) => offerId);
    const readRejected = readAs('rejected');
    const readActive = readAs('active');
    const neverRead = counters.some(([, counter]) => counter.listedAtSend === undefined);
    if (readRejected.length === 0 && readActive.length === 0 && !neverRead) return new Map(counters);
    // How this service lists a waiting countered offer, as most counters read it (`countered` read
    // on any settles it; counterListingHabit), settles a `rejected` read, or none; an `active` read
    // only by a `countered` one sent after it.
    const habit =
      readRejected.length > 0 || neverRead
        ? await counterListingHabit(this.links, brokerageId, ['countered', 'active', 'rejected'])
        : undefined;
    const counteredSince = await this.links.writtenBeforeContent(
      brokerageId,
      LINK.counter,
      readActive,
      '"l":"countered"',
    );
    return new Map(
      counters.map(([offerId, counter]) => [
        offerId,
        {
          ...counter,
          listedAtSend: settledListedAtSend(counter.listedAtSend, habit, counteredSince.has(offerId)),
        },
      ]),
    );
  }

  // What the service's listings showed of our counters (a buyer's answer whose event was lost, the
  // id of a counter whose answer had none) is kept, so it never goes back to less.
  private async learnCounters(
    brokerageId: string,
    read: readonly { record: OfferCrmRecord; offer: Offer; requestOffers: readonly Offer[] }[],
    counters: ReadonlyMap<string, CounterLinkContent>,
    answeredAt: Date,
  ): Promise<void> {
    const learnt: LinkInput[] = [];
    for (const { record, offer, requestOffers } of read) {
      const known = counters.get(record.key);
      if (!known) continue;
      const listedNow = record.properties[OFFER.status] ?? undefined;
      const now = learnCounter(
        known,
        {
          counterId: record.properties[OFFER.counterId] ?? undefined,
          counterStatus: record.properties[OFFER.counterStatus] ?? undefined,
        },
        listedNow,
      );
      if (now.status === known.status && now.id === known.id) continue;
      // A refusal read from the listings: how the offer is listed now is how this service lists
      // an offer whose counter its buyer refused, unless the seller or the cascade listed it so;
      // past the counter's expiry, or a lapse.
      const refusal =
        isRefusedCounter(now.status) &&
        !isRefusedCounter(known.status) &&
        listedNow &&
        refusalListingTeaches(
          offer,
          requestOffers,
          await this.heldStages.sellerDecisionSent(brokerageId, record.key),
        )
          ? {
              listedAfterRefusal: listedNow,
              ...(ranOutBy(known.expiresMs, answeredAt.getTime()) ? { endedPastExpiry: true } : {}),
            }
          : {};
      // The buyer accepted a counter the seller's reject was taken to end: this service leaves such
      // counters standing, which every later reject of a countered offer is read by.
      const outlived =
        known.endedBySeller !== undefined && now.status === 'accepted'
          ? { endedBySeller: undefined, outlivedSellerReject: true }
          : {};
      learnt.push({
        remoteId: record.key,
        crmId: counterCrmId(record.key, now.id),
        contentHash: encodeCounterLink({ ...known, ...now, ...refusal, ...outlived }),
      });
    }
    if (learnt.length > 0) await this.links.upsertLinks(brokerageId, LINK.counter, learnt);
  }

  // Counters this read shows still waiting well past their own expiry, as the offer was listed at the
  // send: marked on their links, so that this brokerage's service is known to let no counter lapse
  // (countersOutliveExpiry). A record unchanged by this read teaches it too; a stale read does not.
  private async noteOutlived(
    brokerageId: string,
    records: OfferCrmRecord[],
    counters: ReadonlyMap<string, CounterLinkContent>,
    readAt: Date,
  ): Promise<void> {
    const outlived = records.flatMap((record) => {
      const known = counters.get(record.key);
      const waiting = record.properties[OFFER.counterStatus] === known?.status;
      if (!known || !waiting) return [];
      if (!showsOutlivedExpiry(known, record.properties[OFFER.status] ?? undefined, readAt.getTime()))
        return [];
      return [
        {
          remoteId: record.key,
          crmId: counterCrmId(record.key, known.id),
          contentHash: encodeCounterLink({ ...known, outlivedExpiry: true }),
        },
      ];
    });
    if (outlived.length === 0) return;
    await this.links.upsertLinks(brokerageId, LINK.counter, outlived);
    this.logger.log(
      `${brokerageId}: counter(s) on offer(s) ${outlived.map((o) => o.remoteId).join(', ')} still wait well past their expiry: this service lets no counter lapse, and a counter seen ended after its expiry is read as its buyer's refusal`,
    );
  }

  // The new records' associations with their listing deal and its seller. Returns the keys of the
  // records the CRM could not associate for now (a retryable failure); a refused one (the listing
  // deal deleted, say) is told on the offer's record errors instead, and not tried again.
  private async associate(
    crm: BrokerageCrm,
    created: { key: string; offer: Offer; crmId: string }[],
  ): Promise<Set<string>> {
    const unassociated = new Set<string>();
    if (created.length === 0) return unassociated;
    const listingOf = new Map<string, string>();
    for (const { offer, crmId } of created) {
      const dealId = await this.status.listingDealOf(
        crm.brokerageId,
        offer.offer_request_id,
        offer.offer_request_external_id,
      );
      if (dealId) listingOf.set(crmId, dealId);
    }
    const listingIds = [...new Set(listingOf.values())];
    const listings =
      listingIds.length > 0 ? await crm.port.getRecords('deal', listingIds, [DEAL.name], ['contact']) : [];
    const sellerOf = new Map(listings.map((d) => [d.id, d.associations?.contact?.[0]]));
    const pairs: CrmAssociationPair[] = [];
    for (const [offerRecordId, dealId] of listingOf) {
      pairs.push({ from: { kind: 'deal', id: offerRecordId }, to: { kind: 'deal', id: dealId } });
      const seller = sellerOf.get(dealId);
      if (seller)
        pairs.push({ from: { kind: 'deal', id: offerRecordId }, to: { kind: 'contact', id: seller } });
    }
    const keyOf = new Map(created.map((c) => [c.crmId, c.key]));
    for (const result of await crm.port.associate(pairs)) {
      if (result.ok) continue;
      const key = keyOf.get(result.pair.from.id) ?? result.pair.from.id;
      const message = `offer ${key}'s CRM record ${result.pair.from.id} was not associated with ${result.pair.to.kind} ${result.pair.to.id}: ${errorMessage(result.error)}`;
      if (result.error.retryable) {
        unassociated.add(key);
        this.logger.warn(`${crm.brokerageId}: ${message}; made again by the offer's next write`);
        continue;
      }
      this.logger.warn(`${crm.brokerageId}: ${message}`);
      await this.recordErrors.record({
        brokerageId: crm.brokerageId,
        recordKind: 'offer',
        recordRef: key,
        message,
        code: result.error.code,
      });
    }
    return unassociated;
  }
}

// A read's times, as the writers take them: when it left (what orders writes) and when its answer
// came (what a counter's lapse is judged by).
function timesOf({ readAt, answeredAt }: OffersRead): Pick<ApplyOptions, 'readAt' | 'answeredAt'> {
  return { readAt, answeredAt };
}

import { Injectable, Logger } from '@nestjs/common';
import type { BrokerageCrm } from '../../brokerages/brokerage-crm';
import type { CashOfferClient } from '../../cash-offer';
import type { Offer } from '../../cash-offer/schema';
import {
  CASH_OFFERS_PIPELINE,
  UNIQUE_OFFER_ID,
  type CrmAssociationPair,
  type CrmUpsertInput,
} from '../../crm';
import { LedgerTurns, LinkRepository, RecordErrorRepository } from '../../ledger';
import { MetricsService } from '../../observability/metrics/metrics.service';
import { emptyCounts, type JobCounts } from '../../scheduler/job.types';
import { contentHash } from '../common/content-hash';
import { errorMessage } from '../common/job-counts';
import { DEAL, LINK } from '../common/listing-deal.properties';
import { listAllOffers } from '../common/offer-pages';
import { DecisionHistoryRecorder, type ShownOffer } from '../history/decision-history.recorder';
import { RequestStatusService } from '../request-status/request-status.service';
import { counterListingHabit } from './counter-listing-habit';
import { mapOfferToCrm, type OfferCrmRecord } from './offer-crm.mapper';
import { OfferSummaries, type OfferSummary } from './offer-summary';
import {
  counterCrmId,
  decodeCounterLink,
  encodeCounterLink,
  otherCountersOf,
  settledListedAtSend,
  type CounterLinkContent,
} from './counter-link';
import { OFFER, offerStageId } from './offer-record.properties';
import { learnCounter } from './offer-record.view';

function groupByRequest(offers: readonly Offer[]): Map<number, Offer[]> {
  const groups = new Map<number, Offer[]>();
  for (const offer of offers) {
    const group = groups.get(offer.offer_request_id) ?? [];
    group.push(offer);
    groups.set(offer.offer_request_id, group);
  }
  return groups;
}

export interface ApplyOptions {
  runId?: number | null;
  dryRun?: boolean;
}

// Flow 4: one CRM offer record per offer, upserted on the offer id, associated with the listing
// deal and the seller contact; the listing deal shows the offer count and the best offer. A record
// whose content hash is unchanged costs no CRM write. Only offers on requests this brokerage's ledger
// links are written. An offer record is placed in a stage only when it is created: every job that
// writes offer records (events, reconcile, decisions) takes its turn per brokerage (`LedgerTurns`:
// in this process and, on PostgreSQL, across every worker, which run a brokerage's jobs side by
// side), and a record the ledger does not link yet is looked up in the CRM first, so no job ever
// mistakes a record an agent has moved for a new one.
@Injectable()
export class OffersService {
  private readonly logger = new Logger(OffersService.name);

  constructor(
    private readonly turns: LedgerTurns,
    private readonly links: LinkRepository,
    private readonly recordErrors: RecordErrorRepository,
    private readonly status: RequestStatusService,
    private readonly metrics: MetricsService,
    private readonly history: DecisionHistoryRecorder,
  ) {}

  // Offers of any requests (one page of GET /offers, or one request's offers).
  applyOffers(crm: BrokerageCrm, offers: Offer[], options: ApplyOptions = {}): Promise<JobCounts> {
    return this.turns.run(`offers:${crm.brokerageId}`, () => this.writeOffers(crm, offers, options));
  }

  private async writeOffers(crm: BrokerageCrm, offers: Offer[], options: ApplyOptions): Promise<JobCounts> {
    const counts = emptyCounts();
    counts.read = offers.length;
    const ours = await this.onLinkedRequests(crm.brokerageId, offers);
    // Read, nothing to write: an offer on a request no listing deal of ours is linked to (yet).
    counts.unchanged += offers.length - ours.length;
    const byRequest = groupByRequest(ours);
    const counters = await this.countersOn(crm.brokerageId, ours);
    const mapped = ours.map((offer) => ({
      offer,
      record: this.recordWith(offer, byRequest.get(offer.offer_request_id) ?? [offer], counters),
    }));
    const items = mapped.map((m) => ({
      ...m,
      hash: contentHash({ p: m.record.properties, s: m.record.stage }),
    }));
    const classes = await this.links.classify(
      crm.brokerageId,
      LINK.offer,
      items.map((i) => ({ remoteId: i.record.key, contentHash: i.hash })),
    );
    const toWrite = items.filter((i) => classes.get(i.record.key) !== 'unchanged');
    counts.unchanged = items.length - toWrite.length;
    if (options.runId) {
      const seen = items.filter((i) => classes.get(i.record.key) === 'unchanged').map((i) => i.record.key);
      await this.links.markSeen(crm.brokerageId, LINK.offer, seen, options.runId);
    }
    if (options.dryRun || toWrite.length === 0) {
      for (const i of toWrite) counts[classes.get(i.record.key) === 'new' ? 'created' : 'updated'] += 1;
      return counts;
    }
    const pipelineId = crm.stages.pipelineId(CASH_OFFERS_PIPELINE);
    const inCrm = await this.existingRecords(
      crm,
      toWrite.filter((i) => classes.get(i.record.key) === 'new').map((i) => i.record.key),
    );
    const inputs: CrmUpsertInput[] = toWrite.map((i) => {
      const isNew = classes.get(i.record.key) === 'new' && !inCrm.has(i.record.key);
      const placeStage = isNew || !i.record.stageOnCreateOnly;
      return {
        key: i.record.key,
        properties: i.record.properties,
        pipelineId,
        ...(placeStage ? { stageId: offerStageId(crm.stages, i.record.stage) } : {}),
      };
    });
    await this.links.forgetContent(
      crm.brokerageId,
      LINK.offer,
      toWrite.filter((i) => classes.get(i.record.key) === 'changed').map((i) => i.record.key),
    );
    const results = await crm.port.upsertRecords('deal', UNIQUE_OFFER_ID, inputs);
    const written: { remoteId: string; crmId: string; contentHash: string; runId?: number }[] = [];
    const created: { offer: Offer; crmId: string }[] = [];
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
      });
      if (classes.get(item.record.key) === 'new') created.push({ offer: item.offer, crmId: result.id });
      shown.push({
        offer: item.offer,
        crmId: result.id,
        created: classes.get(item.record.key) === 'new',
        stage: item.record.stage,
        counterId: item.record.properties[OFFER.counterId] ?? null,
        counterStatus: item.record.properties[OFFER.counterStatus] ?? null,
      });
      counts[classes.get(item.record.key) === 'new' ? 'created' : 'updated'] += 1;
      changes.push(
        `offer ${item.record.key} ${classes.get(item.record.key) === 'new' ? 'created as' : 'updated on'} CRM record ${result.id} (stage ${item.record.stage})`,
      );
      await this.recordErrors.resolve(crm.brokerageId, 'offer', item.record.key);
    }
    // Associations first: a crash before the links are saved re-runs them (they are idempotent).
    await this.associate(crm, created);
    await this.learnCounters(
      crm.brokerageId,
      toWrite.map((i) => i.record),
      counters,
    );
    await this.links.upsertLinks(crm.brokerageId, LINK.offer, written);
    await this.history.recordsShown(crm.brokerageId, shown, ours);
    // One line per record that changed, once the ledger holds it: what an operator reads the log for.
    for (const change of changes) this.logger.log(`${crm.brokerageId}: ${change}`);
    this.metrics.recordsSyncedInRun(crm.brokerageId, 'offers', counts);
    return counts;
  }

  // Re-reads one request's offers from the service and brings their records and the listing deal
  // in step: how a decision's cascade (others rejected, request under contract) lands in the CRM.
  // The service's list is the truth; an event only says which request to read.
  async refreshRequest(
    crm: BrokerageCrm,
    client: CashOfferClient,
    requestId: number,
  ): Promise<{ counts: JobCounts; offers: Offer[] }> {
    return this.applyRequest(crm, await listAllOffers(client, requestId));
  }

  // The same for a request's offers the caller has just read.
  async applyRequest(crm: BrokerageCrm, offers: Offer[]): Promise<{ counts: JobCounts; offers: Offer[] }> {
    const counts = await this.applyOffers(crm, offers);
    const summaries = new OfferSummaries();
    for (const offer of offers) summaries.add(offer);
    await this.applySummaries(crm, summaries);
    return { counts, offers };
  }

  // The listing deal's offer count and best offer, and "under contract" once an offer is accepted.
  async applySummaries(
    crm: BrokerageCrm,
    summaries: OfferSummaries,
    options: ApplyOptions = {},
  ): Promise<number> {
    let written = 0;
    for (const summary of summaries.all()) {
      if (await this.applySummary(crm, summary, options)) written += 1;
      if (summary.accepted) {
        await this.status.apply(crm, summary.requestId, 'under_contract', {
          externalId: summary.externalId,
          dryRun: options.dryRun,
        });
      }
    }
    return written;
  }

  private async applySummary(
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
    const current = await this.links.find(crm.brokerageId, LINK.offerSummary, String(summary.requestId));
    if (current?.contentHash === hash || options.dryRun) return false;
    if (current) await this.links.forgetContent(crm.brokerageId, LINK.offerSummary, [current.remoteId]);
    const [result] = await crm.port.updateRecords('deal', [{ id: dealId, properties }]);
    if (result && !result.ok) {
      this.logger.warn(`deal ${dealId}: offer summary not written: ${errorMessage(result.error)}`);
      return false;
    }
    await this.links.upsertLinks(crm.brokerageId, LINK.offerSummary, [
      { remoteId: String(summary.requestId), crmId: dealId, contentHash: hash },
    ]);
    return true;
  }

  // Offers whose request a listing deal of this brokerage is linked to in the ledger.
  private async onLinkedRequests(brokerageId: string, offers: Offer[]): Promise<Offer[]> {
    const linked = new Map<number, boolean>();
    for (const requestId of new Set(offers.map((o) => o.offer_request_id))) {
      linked.set(
        requestId,
        (await this.links.find(brokerageId, LINK.offerRequest, String(requestId))) !== null,
      );
    }
    return offers.filter((o) => linked.get(o.offer_request_id));
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
  async recordOf(crm: BrokerageCrm, offer: Offer, requestOffers: readonly Offer[]): Promise<OfferCrmRecord> {
    const counters = await this.countersOn(crm.brokerageId, [offer, ...requestOffers]);
    return this.recordWith(offer, requestOffers, counters);
  }

  private recordWith(
    offer: Offer,
    requestOffers: readonly Offer[],
    counters: ReadonlyMap<string, CounterLinkContent>,
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
    if (!counters.some(([, counter]) => counter.listedAtSend === 'rejected')) return new Map(counters);
    // `countered` or `active` read on any counter settles how this service lists one.
    const habit = await counterListingHabit(this.links, brokerageId, ['countered', 'active']);
    return new Map(
      counters.map(([offerId, counter]) => [
        offerId,
        { ...counter, listedAtSend: settledListedAtSend(counter.listedAtSend, habit) },
      ]),
    );
  }

  // What the service's listings showed of our counters (a buyer's answer whose event was lost, the
  // id of a counter whose answer had none) is kept, so it never goes back to less.
  private async learnCounters(
    brokerageId: string,
    records: OfferCrmRecord[],
    counters: ReadonlyMap<string, CounterLinkContent>,
  ): Promise<void> {
    const learnt = records.flatMap((record) => {
      const known = counters.get(record.key);
      if (!known) return [];
      const now = learnCounter(known, {
        counterId: record.properties[OFFER.counterId] ?? undefined,
        counterStatus: record.properties[OFFER.counterStatus] ?? undefined,
      });
      if (now.status === known.status && now.id === known.id) return [];
      return [
        {
          remoteId: record.key,
          crmId: counterCrmId(record.key, now.id),
          contentHash: encodeCounterLink({ ...known, ...now }),
        },
      ];
    });
    if (learnt.length > 0) await this.links.upsertLinks(brokerageId, LINK.counter, learnt);
  }

  private async associate(crm: BrokerageCrm, created: { offer: Offer; crmId: string }[]): Promise<void> {
    if (created.length === 0) return;
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
    for (const result of await crm.port.associate(pairs)) {
      if (!result.ok) this.logger.warn(`association not made: ${errorMessage(result.error)}`);
    }
  }
}

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
import { LinkRepository, RecordErrorRepository } from '../../ledger';
import { MetricsService } from '../../ops/metrics/metrics.service';
import { emptyCounts, type JobCounts } from '../../scheduler/job.types';
import { contentHash } from '../common/content-hash';
import { errorMessage } from '../common/job-counts';
import { DEAL, LINK } from '../common/listing-deal.properties';
import { listAllOffers } from '../common/offer-pages';
import { RequestStatusService } from '../request-status/request-status.service';
import { mapOfferToCrm, type OfferCrmRecord } from './offer-crm.mapper';
import { OfferSummaries, type OfferSummary } from './offer-summary';

export interface ApplyOptions {
  runId?: number | null;
  dryRun?: boolean;
}

// Flow 4: one CRM offer record per offer, upserted on the offer id, associated with the listing
// deal and the seller contact; the listing deal shows the offer count and the best offer. A record
// whose content hash is unchanged costs no CRM write.
@Injectable()
export class OffersService {
  private readonly logger = new Logger(OffersService.name);

  constructor(
    private readonly links: LinkRepository,
    private readonly recordErrors: RecordErrorRepository,
    private readonly status: RequestStatusService,
    private readonly metrics: MetricsService,
  ) {}

  // Offers of any requests (one page of GET /offers, or one request's offers).
  async applyOffers(crm: BrokerageCrm, offers: Offer[], options: ApplyOptions = {}): Promise<JobCounts> {
    const counts = emptyCounts();
    counts.read = offers.length;
    const mapped = await Promise.all(
      offers.map(async (offer) => ({ offer, record: await this.recordOf(crm, offer) })),
    );
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
    const inputs: CrmUpsertInput[] = toWrite.map((i) => {
      const isNew = classes.get(i.record.key) === 'new';
      const placeStage = isNew || !i.record.stageOnCreateOnly;
      return {
        key: i.record.key,
        properties: i.record.properties,
        pipelineId,
        ...(placeStage ? { stageId: crm.stages.stageId(CASH_OFFERS_PIPELINE, i.record.stage) } : {}),
      };
    });
    const results = await crm.port.upsertRecords('deal', UNIQUE_OFFER_ID, inputs);
    const written: { remoteId: string; crmId: string; contentHash: string; runId?: number }[] = [];
    const created: { offer: Offer; crmId: string }[] = [];
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
      counts[classes.get(item.record.key) === 'new' ? 'created' : 'updated'] += 1;
      await this.recordErrors.resolve(crm.brokerageId, 'offer', item.record.key);
    }
    // Associations first: a crash before the links are saved re-runs them (they are idempotent).
    await this.associate(crm, created);
    await this.links.upsertLinks(crm.brokerageId, LINK.offer, written);
    this.metrics.recordsSyncedInRun(crm.brokerageId, 'offers', counts);
    return counts;
  }

  // Re-reads one request's offers from the service and brings their records and the listing deal
  // in step: how a decision's cascade (others rejected, request under contract) lands in the CRM.
  async refreshRequest(
    crm: BrokerageCrm,
    client: CashOfferClient,
    requestId: number,
    fromEvent?: Offer,
  ): Promise<{ counts: JobCounts; offers: Offer[] }> {
    const offers = await listAllOffers(client, requestId);
    // The list is authoritative; an event's offer is only added if the list does not show it yet.
    if (fromEvent && !offers.some((o) => o.offer_id === fromEvent.offer_id)) offers.push(fromEvent);
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

  // The record an offer maps to, with the counter the agent made on it (from the ledger).
  async recordOf(crm: BrokerageCrm, offer: Offer): Promise<OfferCrmRecord> {
    const counter = await this.links.find(crm.brokerageId, LINK.counter, String(offer.offer_id));
    return mapOfferToCrm({
      offer,
      counter: counter ? { id: counter.crmId, status: counter.contentHash } : undefined,
    });
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

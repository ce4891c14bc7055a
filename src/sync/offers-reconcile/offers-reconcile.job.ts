import { Injectable } from '@nestjs/common';
import type { BrokerageCrm } from '../../brokerages/brokerage-crm';
import { BrokerageCrms } from '../../brokerages/brokerage-crms';
import { CashOfferClients } from '../../brokerages/cash-offer-clients';
import { LinkRepository } from '../../ledger';
import { SyncJob, type SyncJobHandler } from '../../scheduler/sync-job.decorator';
import { emptyCounts, type JobContext, type JobCounts, type JobResult } from '../../scheduler/job.types';
import { addCounts } from '../common/job-counts';
import { LINK } from '../common/listing-deal.properties';
import { Clock } from '../../common/clock';
import { passRequestOffers, streamOfferReads } from '../common/offer-pages';
import { RequestStatusService } from '../request-status/request-status.service';
import { OfferSummaries } from '../offers/offer-summary';
import { OffersService } from '../offers/offers.service';
import { CounterClocks } from '../offer-clocks/counter-clocks.service';
import { OfferClocks } from '../offer-clocks/offer-clocks.service';
import { OfferNumbers } from '../offer-clocks/offer-numbers';
import type { CashOfferClient } from '../../cash-offer';
import type { Offer } from '../../cash-offer/schema';
import { UnconfirmedOffers } from '../offers/unconfirmed-offers';
import { OffersOnUnlinkedRequests } from '../offers/offers-on-unlinked-requests';
import { UnlistedOffers } from '../offers/unlisted-offers';
import { EvidenceLooks } from '../seller-requests/evidence-looks';

// One run's parts, as each of its two reads needs them.
interface Pass {
  ctx: JobContext;
  crm: BrokerageCrm;
  client: CashOfferClient;
  counts: JobCounts;
}

// The `offers-reconcile` cron: every offer on our requests (GET /offers, page by page) and the status
// of our requests in the active list, for whatever a lost webhook missed. Unchanged records cost nothing.
// After a complete pass, what only a complete list can tell: offers gone from it (UnlistedOffers), the
// offer and counter clocks, and each newly decided offer counted once (OfferNumbers).
@Injectable()
@SyncJob('offers-reconcile')
export class OffersReconcileJob implements SyncJobHandler {
  constructor(
    private readonly crms: BrokerageCrms,
    private readonly cashOffers: CashOfferClients,
    private readonly offers: OffersService,
    private readonly status: RequestStatusService,
    private readonly links: LinkRepository,
    private readonly unlisted: UnlistedOffers,
    private readonly unconfirmed: UnconfirmedOffers,
    private readonly onUnlinked: OffersOnUnlinkedRequests,
    private readonly clocks: OfferClocks,
    private readonly counterClocks: CounterClocks,
    private readonly numbers: OfferNumbers,
    private readonly clock: Clock,
    private readonly looks: EvidenceLooks,
  ) {}

  async run(ctx: JobContext): Promise<JobResult> {
    const counts = emptyCounts();
    const crm = await this.crms.get(ctx.brokerage.id);
    const client = this.cashOffers.get(ctx.brokerage.id);
    const pass: Pass = { ctx, crm, client, counts };
    // The two reads stand apart: an active list that cannot be read (a service refusing every page
    // of it, say) leaves the offers to be read all the same, and the run still fails on it. The
    // statuses come first: a request they find under a deal whose create is unfinished is linked
    // there (EvidenceLooks), and this pass's offers on it are then written, not skipped until the
    // next (a 200-kill soak lost an offer made 3 s after its create and expired 44 s later, whose
    // one complete pass linked its request 5 s too late).
    let statusesFailed: { error: unknown } | undefined;
    try {
      await this.reconcileStatuses(pass);
    } catch (error) {
      statusesFailed = { error };
    }
    if (!ctx.signal.aborted) await this.reconcileOffers(pass);
    if (statusesFailed) throw statusesFailed.error;
    return { counts };
  }

  private async reconcileOffers({ ctx, crm, client, counts }: Pass): Promise<void> {
    const id = ctx.brokerage.id;
    const options = { runId: ctx.runId, dryRun: ctx.dryRun };
    const summaries = new OfferSummaries();
    const listed = new Set<string>();
    const clocked: Offer[] = [];
    // Each request's earliest offer, for a request no deal holds (EvidenceLooks.soleUnclaimedRequest).
    const firstOfferAt = new Map<number, number>();
    const requestOffersOf = passRequestOffers(client);
    // Each page is written as of when it was read: a page read before an event's re-read of the same
    // offers, and written after it, leaves that newer write alone.
    for await (const { offers: page, readAt, answeredAt } of streamOfferReads(
      client,
      this.clock,
      {},
      ctx.signal,
    )) {
      if (!ctx.dryRun) await this.linkCreatesNamedBy(id, page);
      if (!ctx.dryRun) await this.onUnlinked.keep(id, page, readAt);
      addCounts(
        counts,
        await this.offers.applyOffers(crm, page, {
          ...options,
          readAt,
          answeredAt,
          requestOffersOf,
        }),
      );
      for (const offer of page) {
        summaries.add(offer, readAt);
        listed.add(String(offer.offer_id));
        const madeAt = Date.parse(offer.created_at ?? '');
        const first = firstOfferAt.get(offer.offer_request_id);
        if (first === undefined || madeAt < first) firstOfferAt.set(offer.offer_request_id, madeAt);
        if (this.clocks.concerns(ctx.brokerage, offer)) clocked.push(offer);
      }
      if (!ctx.dryRun) await this.numbers.learnDecisions(id, page);
      ctx.progress(counts.read);
    }
    if (ctx.signal.aborted) return;
    await this.offers.applySummaries(crm, summaries, options);
    // A complete pass: offers it did not list may have expired off the list (unlisted-offers.ts).
    if (ctx.runId && !ctx.dryRun) {
      // A request only a lost create can have made is linked before the kept offers are shown.
      await this.looks.soleUnclaimedRequest(id, firstOfferAt);
      // Records made by a write whose answer was lost, of offers no longer listed: linked first, so
      // that what became of them is shown with the rest.
      counts.updated += await this.unconfirmed.adopt(crm, listed);
      // Offers read while their request was not linked, gone from the list by the time it was.
      counts.created += await this.onUnlinked.showLinked(crm, listed);
      counts.updated += await this.unlisted.show(crm, listed, ctx.runId);
      const clocks = await this.clocks.afterPass(crm, ctx.brokerage, { offers: clocked, listed });
      const counterClocks = await this.counterClocks.afterPass(crm, ctx.brokerage, { listed });
      // Tasks queued to be made or closed count as this run's writes (as crm-changes counts the
      // requests it queues), so the scheduler drains the outbox at once (early-drain.ts) rather
      // than at its next tick: a reminder is due now.
      counts.created += clocks.tasksQueued + counterClocks.tasksQueued;
      counts.updated += clocks.shownExpired + clocks.tasksClosed + counterClocks.tasksClosed;
    }
  }

  // Offers that echo the deal's id, on a request not linked yet: the request is linked to the deal
  // whose create the service took (EvidenceLooks), so that they are written by this very pass.
  private async linkCreatesNamedBy(brokerageId: string, page: readonly Offer[]): Promise<void> {
    const named = new Map<number, string>();
    for (const offer of page)
      if (offer.offer_request_external_id) named.set(offer.offer_request_id, offer.offer_request_external_id);
    for (const [requestId, dealId] of named) await this.looks.requestNamed(brokerageId, requestId, dealId);
  }

  // Our requests' statuses in the active list, for a status event that was lost.
  private async reconcileStatuses({ ctx, crm, client, counts }: Pass): Promise<void> {
    const id = ctx.brokerage.id;
    // Every status on the list was read after this moment: it replaces one shown from an earlier read.
    const listReadAt = this.clock.now();
    for await (const page of client.streamActiveOfferRequests({ pageSize: 100 })) {
      if (ctx.signal.aborted) break;
      for (const { request } of page) {
        if (request.offer_request_id === undefined || !request.offer_request_status) continue;
        const ours =
          request.offer_request_external_id ??
          (await this.links.find(id, LINK.offerRequest, String(request.offer_request_id)))?.crmId;
        if (!ours) continue;
        // Listed under the deal's id before its create was finished (its answer lost, or without the
        // id): linked now, so this pass writes its offers rather than waiting for the create's look,
        // by when one may have expired off the list with no record made.
        if (request.offer_request_external_id && !ctx.dryRun)
          await this.looks.requestNamed(id, request.offer_request_id, request.offer_request_external_id);
        const outcome = await this.status.apply(crm, request.offer_request_id, request.offer_request_status, {
          externalId: ours,
          dryRun: ctx.dryRun,
          readAt: listReadAt,
          inventoryId: request.inventory_property_id,
        });
        // Each of our requests in the active list is a record this run read.
        if (outcome === 'unknown_request') continue;
        counts.read += 1;
        counts[outcome] += 1;
      }
    }
  }
}

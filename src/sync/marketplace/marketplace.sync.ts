import { Logger } from '@nestjs/common';
import type { ActiveOfferRequest } from '../../cash-offer/schema';
import type { StreamActiveOptions } from '../../cash-offer';
import type { Clock } from '../../common/clock';
import type { CrmPort } from '../../crm/crm.port';
import type { CrmStageMap } from '../../crm/crm-stage-map';
import { MARKETPLACE_PIPELINE } from '../../crm/crm-schema';
import type { LinkRepository, RecordErrorRepository } from '../../ledger';
import type { JobContext, JobCounts } from '../../scheduler/job.types';
import { emptyCounts } from '../../scheduler/job.types';
import { listingContentHash } from './listing-hash';
import { listingKey } from './listing-key';
import type { MarketplaceRecordOptions } from './listing-record.mapper';
import { toMarketplaceRecord } from './listing-record.mapper';
import {
  ACTIVE_LIST_SORT,
  ACTIVE_PAGE_SIZE,
  MARKETPLACE_LINK_KIND,
  MARKETPLACE_STAGE_ACTIVE,
} from './marketplace.constants';
import { MarketplaceCloser } from './marketplace.closer';
import { MarketplaceWriter } from './marketplace.writer';

const MAX_OPEN_ERRORS_READ = 10_000;

// What one pass needs of the brokerage: its active list and its CRM.
export interface MarketplaceSource {
  streamActiveOfferRequests(options?: StreamActiveOptions): AsyncIterable<ActiveOfferRequest[]>;
}

export interface MarketplaceTarget {
  crm: CrmPort;
  stages: CrmStageMap;
  record?: MarketplaceRecordOptions;
}

// The marketplace mirror: every page of the active list, one CRM deal per listing, unchanged
// listings skipped by content hash, and listings that left a complete pass closed.
export class MarketplaceSync {
  private readonly logger = new Logger(MarketplaceSync.name);

  constructor(
    private readonly links: LinkRepository,
    private readonly recordErrors: RecordErrorRepository,
    private readonly clock: Clock,
  ) {}

  async run(ctx: JobContext, source: MarketplaceSource, target: MarketplaceTarget): Promise<JobCounts> {
    const brokerageId = ctx.brokerage.id;
    const counts = emptyCounts();
    const pipelineId = target.stages.pipelineId(MARKETPLACE_PIPELINE);
    const runId = ctx.dryRun ? null : ctx.runId;
    const openErrors = runId === null ? new Set<string>() : await this.openErrorKeys(brokerageId);
    const writer =
      runId === null
        ? undefined
        : new MarketplaceWriter(
            {
              crm: target.crm,
              pipelineId,
              activeStageId: target.stages.stageId(MARKETPLACE_PIPELINE, MARKETPLACE_STAGE_ACTIVE),
            },
            this.links,
            this.recordErrors,
            this.clock,
            brokerageId,
            runId,
            openErrors,
          );
    // A dry run has no run id to mark links with, so it remembers the keys it saw.
    const seenInDryRun = runId === null ? new Set<string>() : undefined;
    // The active list says nothing of its length; the listings mirrored so far are the best guess,
    // so a pass shows how far along it is (sync --once's bar, the status page).
    const expected = await this.links.countActive(brokerageId, MARKETPLACE_LINK_KIND);
    let complete = false;
    try {
      for await (const page of source.streamActiveOfferRequests({
        pageSize: ACTIVE_PAGE_SIZE,
        sort: ACTIVE_LIST_SORT,
      })) {
        await this.page(page, ctx, target, counts, writer, seenInDryRun);
        ctx.progress(counts.read, expected > 0 ? Math.max(expected, counts.read) : undefined);
        if (ctx.signal.aborted) break;
      }
      complete = !ctx.signal.aborted;
    } finally {
      // What was read is written even when the pass stops; a failing flush must not hide the first error.
      if (complete) await writer?.flush();
      else
        await writer
          ?.flush()
          .catch((e: unknown) =>
            this.logger.warn(`[${brokerageId}] marketplace flush after a stopped pass failed: ${String(e)}`),
          );
    }
    if (writer) {
      counts.created += writer.counts.created;
      counts.updated += writer.counts.updated;
      counts.failed += writer.counts.failed;
    }
    if (!complete) {
      this.logger.log(
        `[${brokerageId}] marketplace pass stopped after ${counts.read} listings; nothing closed`,
      );
      return counts;
    }
    const closer = new MarketplaceCloser(
      target.crm,
      target.stages,
      this.links,
      this.recordErrors,
      brokerageId,
    );
    const closed = runId === null ? await closer.countNotSeen(seenInDryRun!) : await closer.close(runId);
    counts.updated += closed.closed;
    counts.failed += closed.failed;
    return counts;
  }

  // Listings whose earlier failure is still open, so a pass that writes them can resolve it.
  private async openErrorKeys(brokerageId: string): Promise<Set<string>> {
    const open = await this.recordErrors.listOpen({ brokerageId, limit: MAX_OPEN_ERRORS_READ });
    return new Set(open.filter((e) => e.recordKind === MARKETPLACE_LINK_KIND).map((e) => e.recordRef));
  }

  private async page(
    page: ActiveOfferRequest[],
    ctx: JobContext,
    target: MarketplaceTarget,
    counts: JobCounts,
    writer: MarketplaceWriter | undefined,
    seenInDryRun: Set<string> | undefined,
  ): Promise<void> {
    const brokerageId = ctx.brokerage.id;
    const items = new Map<string, { record: ReturnType<typeof toMarketplaceRecord>; hash: string }>();
    for (const item of page) {
      counts.read++;
      const key = listingKey(item);
      if (!key) {
        counts.failed++;
        this.logger.warn(
          `[${brokerageId}] an active listing has no request id, property id, hash or address; skipped`,
        );
        continue;
      }
      const record = toMarketplaceRecord(item, key.key, target.record);
      items.set(key.key, { record, hash: listingContentHash(record.durable, record.photoIds) });
    }
    const classes = await this.links.classify(
      brokerageId,
      MARKETPLACE_LINK_KIND,
      [...items.entries()].map(([remoteId, i]) => ({ remoteId, contentHash: i.hash })),
    );
    const unchanged: string[] = [];
    for (const [key, { record, hash }] of items) {
      seenInDryRun?.add(key);
      const cls = classes.get(key);
      if (cls === 'unchanged') {
        unchanged.push(key);
        continue;
      }
      if (!writer) {
        if (cls === 'new') counts.created++;
        else counts.updated++;
        continue;
      }
      await writer.add({ record, hash, isNew: cls === 'new' });
    }
    counts.unchanged += unchanged.length;
    if (writer && ctx.runId !== null)
      await this.links.markSeen(brokerageId, MARKETPLACE_LINK_KIND, unchanged, ctx.runId);
  }
}

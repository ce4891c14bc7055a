import type { Clock } from '../../common/clock';
import type { CrmPort } from '../../crm/crm.port';
import type { CrmWriteResult } from '../../crm/crm.types';
import { UNIQUE_LISTING_KEY } from '../../crm/crm-schema';
import type { LinkRepository, RecordErrorRepository } from '../../ledger';
import type { MarketplaceRecord } from './listing-record.mapper';
import { unconfirmedCrmId } from '../common/unconfirmed-crm-id';
import { CRM_BATCH_SIZE, MARKETPLACE_LINK_KIND } from './marketplace.constants';

export interface PendingListingWrite {
  record: MarketplaceRecord;
  hash: string;
  isNew: boolean;
}

export interface WriterCounts {
  created: number;
  updated: number;
  failed: number;
}

export interface MarketplaceWriterTarget {
  crm: CrmPort;
  pipelineId: string;
  activeStageId: string;
}

// Collects the listings a pass must write and sends them in CRM batches of 100 (a few batches per
// flush, which the adapter runs side by side). A link is saved only after its CRM write succeeded,
// and an existing one forgets its content before the write, so a crash or a failed write leaves the
// listing "changed" for the next pass.
export class MarketplaceWriter {
  readonly counts: WriterCounts = { created: 0, updated: 0, failed: 0 };
  private pending = new Map<string, PendingListingWrite>();

  constructor(
    private readonly target: MarketplaceWriterTarget,
    private readonly links: LinkRepository,
    private readonly recordErrors: RecordErrorRepository,
    private readonly clock: Clock,
    private readonly brokerageId: string,
    private readonly runId: number,
    // Listings with an open record error: resolved once they are written.
    private readonly openErrors: ReadonlySet<string> = new Set(),
    private readonly flushAt = CRM_BATCH_SIZE * 4,
  ) {}

  async add(write: PendingListingWrite): Promise<void> {
    this.pending.set(write.record.key, write);
    if (this.pending.size >= this.flushAt) await this.flush();
  }

  // Throws when the CRM as a whole is unavailable (the pass must fail and close nothing);
  // a record the CRM refuses is recorded as that record's error and the rest goes on.
  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const writes = [...this.pending.values()];
    this.pending = new Map();
    const refreshedAt = this.clock.now().toISOString();
    // Listings already linked stop vouching for what their records show until this write's links are
    // saved, and count as open: a write whose answer is lost, followed by the listing going back to
    // its old content, would otherwise read as unchanged over a record showing the lost write, and a
    // reopening left `gone` would never be closed again. New ones are linked to no record yet: a
    // create whose answer is lost is then still the closer's to find by its key (before, a listing
    // that left the list before the next pass kept its record Active for good).
    await this.links.reopenUnvouched(
      this.brokerageId,
      MARKETPLACE_LINK_KIND,
      writes.filter((w) => !w.isNew).map((w) => w.record.key),
      this.runId,
    );
    await this.links.linkBeforeCreate(
      this.brokerageId,
      MARKETPLACE_LINK_KIND,
      writes
        .filter((w) => w.isNew)
        .map((w) => ({ remoteId: w.record.key, crmId: unconfirmedCrmId(w.record.key), runId: this.runId })),
    );
    const results = await this.target.crm.upsertRecords(
      'deal',
      UNIQUE_LISTING_KEY,
      writes.map((w) => ({
        key: w.record.key,
        pipelineId: this.target.pipelineId,
        stageId: this.target.activeStageId,
        properties: {
          ...w.record.durable,
          cash_offer_listing_photos: w.record.photoLinks,
          cash_offer_listing_photos_refreshed_at: w.record.photoLinks === null ? null : refreshedAt,
        },
      })),
    );
    await this.save(writes, results);
  }

  private async save(writes: PendingListingWrite[], results: CrmWriteResult[]): Promise<void> {
    const saved = [];
    const refused: string[] = [];
    let unavailable: Error | undefined;
    for (let i = 0; i < writes.length; i++) {
      const result = results[i];
      const write = writes[i];
      if (result.ok) {
        saved.push({
          remoteId: write.record.key,
          crmId: result.id,
          contentHash: write.hash,
          runId: this.runId,
        });
        // A listing linked to no record yet may have been made by a write whose answer was lost.
        if (result.created) this.counts.created++;
        else this.counts.updated++;
        continue;
      }
      this.counts.failed++;
      // An unavailable CRM is not the listing's fault: the pass fails and the next one writes it.
      if (result.error.retryable) {
        unavailable ??= result.error;
        continue;
      }
      refused.push(write.record.key);
      await this.recordErrors.record({
        brokerageId: this.brokerageId,
        recordKind: MARKETPLACE_LINK_KIND,
        recordRef: write.record.key,
        message: `marketplace listing ${write.record.key} could not be written to the CRM: ${result.error.message}`,
        code: result.error.code,
      });
    }
    await this.links.upsertLinks(this.brokerageId, MARKETPLACE_LINK_KIND, saved);
    for (const { remoteId } of saved)
      if (this.openErrors.has(remoteId))
        await this.recordErrors.resolve(this.brokerageId, MARKETPLACE_LINK_KIND, remoteId);
    // A refused listing was still seen: it must not be closed as "no longer listed".
    await this.links.markSeen(this.brokerageId, MARKETPLACE_LINK_KIND, refused, this.runId);
    if (unavailable) throw unavailable;
  }
}

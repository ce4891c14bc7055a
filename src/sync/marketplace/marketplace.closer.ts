import { Logger } from '@nestjs/common';
import type { CrmPort } from '../../crm/crm.port';
import type { CrmStageMap } from '../../crm/crm-stage-map';
import { MARKETPLACE_PIPELINE, UNIQUE_LISTING_KEY } from '../../crm/crm-schema';
import type { LinkRepository, RecordErrorRepository } from '../../ledger';
import { isUnconfirmedCrmId } from '../common/unconfirmed-crm-id';
import {
  CRM_BATCH_SIZE,
  MARKETPLACE_LINK_KIND,
  MARKETPLACE_STAGE_GONE,
  NO_LONGER_LISTED_STATUS,
} from './marketplace.constants';

type Link = Awaited<ReturnType<LinkRepository['listNotSeenIn']>>[number];

// Moves listings that a complete, error-free pass did not see to "no longer listed". Never deletes:
// the buyer agents' notes and associations stay, and a listing that comes back is reopened.
// Only ever called after such a pass; a partial pass proves nothing about what is missing.
export class MarketplaceCloser {
  private readonly logger = new Logger(MarketplaceCloser.name);

  constructor(
    private readonly crm: CrmPort,
    private readonly stages: CrmStageMap,
    private readonly links: LinkRepository,
    private readonly recordErrors: RecordErrorRepository,
    private readonly brokerageId: string,
    private readonly openErrors: ReadonlySet<string> = new Set(),
  ) {}

  async close(runId: number): Promise<{ closed: number; failed: number }> {
    const notSeen = await this.links.listNotSeenIn(this.brokerageId, MARKETPLACE_LINK_KIND, runId);
    const missing = await this.withRecords(notSeen);
    if (missing.length === 0) return { closed: 0, failed: 0 };
    const pipelineId = this.stages.pipelineId(MARKETPLACE_PIPELINE);
    const stageId = this.stages.stageId(MARKETPLACE_PIPELINE, MARKETPLACE_STAGE_GONE);
    let closed = 0;
    let failed = 0;
    for (let start = 0; start < missing.length; start += CRM_BATCH_SIZE) {
      const batch = missing.slice(start, start + CRM_BATCH_SIZE);
      // From here the CRM may show these listings closed: a close whose answer is lost (a kill, an
      // error after the write landed) must not leave links vouching for an open record, or a listing
      // that comes back unchanged is never written again (buyer soak seed 2: one stayed "no longer
      // listed" while the service listed it).
      await this.links.forgetContent(
        this.brokerageId,
        MARKETPLACE_LINK_KIND,
        batch.map((link) => link.remoteId),
      );
      const results = await this.crm.updateRecords(
        'deal',
        batch.map((link) => ({
          id: link.crmId,
          pipelineId,
          stageId,
          properties: { cash_offer_listing_status: NO_LONGER_LISTED_STATUS },
        })),
      );
      const gone: string[] = [];
      for (let i = 0; i < batch.length; i++) {
        const result = results[i];
        if (result.ok) {
          gone.push(batch[i].remoteId);
          continue;
        }
        failed++;
        // Stays active in the ledger, so the next complete pass tries again (or, listed again by then,
        // writes it open: its content is no longer vouched for).
        await this.recordErrors.record({
          brokerageId: this.brokerageId,
          recordKind: MARKETPLACE_LINK_KIND,
          recordRef: batch[i].remoteId,
          message: `marketplace listing ${batch[i].remoteId} (deal ${batch[i].crmId}) is no longer listed but could not be moved to "no longer listed": ${result.error.message}`,
          code: result.error.code,
        });
      }
      closed += await this.links.markGone(this.brokerageId, MARKETPLACE_LINK_KIND, gone);
      for (const key of gone)
        if (this.openErrors.has(key))
          await this.recordErrors.resolve(this.brokerageId, MARKETPLACE_LINK_KIND, key);
    }
    this.logger.log(`[${this.brokerageId}] ${closed} marketplace listings no longer listed`);
    return { closed, failed };
  }

  // The records of links whose first write's answer was lost (a placeholder CRM id), found by their
  // listing keys with a read that sees a record the moment it is written: one found is closed like
  // any other; none means the create never landed, and the link is simply gone. A lookup that fails
  // leaves them for the next complete pass.
  private async withRecords(links: Link[]): Promise<Link[]> {
    const unconfirmed = links.filter((l) => isUnconfirmedCrmId(l.crmId));
    if (unconfirmed.length === 0) return links;
    const found = new Map<string, string>();
    try {
      for (let start = 0; start < unconfirmed.length; start += CRM_BATCH_SIZE) {
        const keys = unconfirmed.slice(start, start + CRM_BATCH_SIZE).map((l) => l.remoteId);
        for (const record of await this.crm.findByUniqueValues('deal', UNIQUE_LISTING_KEY, keys, [
          UNIQUE_LISTING_KEY,
        ]))
          found.set(record.properties[UNIQUE_LISTING_KEY] ?? '', record.id);
      }
    } catch (error) {
      this.logger.warn(
        `[${this.brokerageId}] could not look up ${unconfirmed.length} marketplace records whose first write's answer was lost; the next pass looks again: ${String(error)}`,
      );
      return links.filter((l) => !isUnconfirmedCrmId(l.crmId));
    }
    const neverMade = unconfirmed.filter((l) => !found.has(l.remoteId)).map((l) => l.remoteId);
    await this.links.markGone(this.brokerageId, MARKETPLACE_LINK_KIND, neverMade);
    return links.flatMap((l) => {
      if (!isUnconfirmedCrmId(l.crmId)) return [l];
      const crmId = found.get(l.remoteId);
      return crmId ? [{ ...l, crmId }] : [];
    });
  }

  // Dry run: how many active links a real pass would close, writing nothing.
  async countNotSeen(seen: ReadonlySet<string>): Promise<{ closed: number; failed: number }> {
    // No run ever has id -1, so this lists every active link.
    const active = await this.links.listNotSeenIn(this.brokerageId, MARKETPLACE_LINK_KIND, -1);
    return { closed: active.filter((l) => !seen.has(l.remoteId)).length, failed: 0 };
  }
}

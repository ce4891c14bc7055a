import { Logger } from '@nestjs/common';
import type { CrmPort } from '../../crm/crm.port';
import type { CrmStageMap } from '../../crm/crm-stage-map';
import { MARKETPLACE_PIPELINE } from '../../crm/crm-schema';
import type { LinkRepository, RecordErrorRepository } from '../../ledger';
import {
  CRM_BATCH_SIZE,
  MARKETPLACE_LINK_KIND,
  MARKETPLACE_STAGE_GONE,
  NO_LONGER_LISTED_STATUS,
} from './marketplace.constants';

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
    const missing = await this.links.listNotSeenIn(this.brokerageId, MARKETPLACE_LINK_KIND, runId);
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

  // Dry run: how many active links a real pass would close, writing nothing.
  async countNotSeen(seen: ReadonlySet<string>): Promise<{ closed: number; failed: number }> {
    // No run ever has id -1, so this lists every active link.
    const active = await this.links.listNotSeenIn(this.brokerageId, MARKETPLACE_LINK_KIND, -1);
    return { closed: active.filter((l) => !seen.has(l.remoteId)).length, failed: 0 };
  }
}

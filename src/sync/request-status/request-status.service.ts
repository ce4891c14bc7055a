import { Injectable, Logger } from '@nestjs/common';
import type { BrokerageCrm } from '../../brokerages/brokerage-crm';
import { LinkRepository } from '../../ledger';
import { DEAL, LINK } from '../common/listing-deal.properties';
import { isForward } from './request-status.rank';
import { DecisionHistoryRecorder } from '../history/decision-history.recorder';

export type StatusOutcome = 'updated' | 'unchanged' | 'unknown_request';

// Flow 3: the offer request's status on its listing deal, from events and the active list. Any
// status value is shown as it is; a late or repeated one never moves the deal backwards.
@Injectable()
export class RequestStatusService {
  private readonly logger = new Logger(RequestStatusService.name);

  constructor(
    private readonly links: LinkRepository,
    private readonly history: DecisionHistoryRecorder,
  ) {}

  async listingDealOf(
    brokerageId: string,
    requestId: number,
    externalId?: string | null,
  ): Promise<string | undefined> {
    const link = await this.links.find(brokerageId, LINK.offerRequest, String(requestId));
    return link?.crmId ?? (externalId ? externalId : undefined);
  }

  async apply(
    crm: BrokerageCrm,
    requestId: number,
    status: string,
    options: { externalId?: string | null; dryRun?: boolean } = {},
  ): Promise<StatusOutcome> {
    const dealId = await this.listingDealOf(crm.brokerageId, requestId, options.externalId);
    if (!dealId) {
      this.logger.warn(
        `offer request ${requestId}: no listing deal is linked to it; status "${status}" not shown`,
      );
      return 'unknown_request';
    }
    const current = await this.links.find(crm.brokerageId, LINK.requestStatus, String(requestId));
    if (current && !isForward(current.contentHash, status)) return 'unchanged';
    if (options.dryRun) return 'updated';
    const [written] = await crm.port.updateRecords('deal', [
      { id: dealId, properties: { [DEAL.status]: status } },
    ]);
    if (written && !written.ok) throw written.error;
    await this.links.upsertLinks(crm.brokerageId, LINK.requestStatus, [
      { remoteId: String(requestId), crmId: dealId, contentHash: status },
    ]);
    await this.history.requestShown(crm.brokerageId, requestId, dealId, status, status === 'under_contract');
    return 'updated';
  }
}

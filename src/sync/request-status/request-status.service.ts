import { Injectable, Logger } from '@nestjs/common';
import type { BrokerageCrm } from '../../brokerages/brokerage-crm';
import { Clock } from '../../common/clock';
import { LedgerTurns, LinkRepository, RecordErrorRepository } from '../../ledger';
import { errorMessage } from '../common/job-counts';
import { DEAL, LINK } from '../common/listing-deal.properties';
import { keptReadAt, showsOver } from './request-status.order';
import { DecisionHistoryRecorder } from '../history/decision-history.recorder';

// `failed`: the CRM refused the deal's write (a deal deleted there, say); the error is stored on the
// request (record kind `request`, field the status) until a later write of its status goes through.
export type StatusOutcome = 'updated' | 'unchanged' | 'failed' | 'unknown_request';

export interface StatusOptions {
  externalId?: string | null;
  dryRun?: boolean;
  // When the service said this status (a fetch that started then; the time of the acceptance it
  // follows from). Undefined for an event: the sender may repeat or delay it (request-status.order.ts).
  readAt?: Date;
  // The request's inventory property id, where the read gave it (the active list): shown on the deal
  // once, when the create's answer did not carry it (push to marketplace and buyer leads need it).
  inventoryId?: number;
}

// One writer of a brokerage's request statuses at a time, in every process of the ledger: the
// comparison with what the deal shows holds until the write.
const turnOf = (brokerageId: string): string => `request-status:${brokerageId}`;

// Flow 3: the offer request's status on its listing deal, from events, the active list and accepted
// offers. Any status value is shown as it is; a status read after the one shown replaces it (a
// reopened request shows `active` again), a late or repeated one never does.
@Injectable()
export class RequestStatusService {
  private readonly logger = new Logger(RequestStatusService.name);

  constructor(
    private readonly links: LinkRepository,
    private readonly history: DecisionHistoryRecorder,
    private readonly turns: LedgerTurns,
    private readonly recordErrors: RecordErrorRepository,
    private readonly clock: Clock,
  ) {}

  // The inventory id to write on the deal: one the read gave that the deal does not show yet.
  private async inventoryDue(
    brokerageId: string,
    requestId: string,
    inventoryId: number | undefined,
  ): Promise<string | undefined> {
    if (inventoryId === undefined || !Number.isSafeInteger(inventoryId) || inventoryId <= 0) return undefined;
    const link = await this.links.find(brokerageId, LINK.requestInventory, requestId);
    return link?.contentHash === String(inventoryId) ? undefined : String(inventoryId);
  }

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
    options: StatusOptions = {},
  ): Promise<StatusOutcome> {
    const dealId = await this.listingDealOf(crm.brokerageId, requestId, options.externalId);
    if (!dealId) {
      this.logger.warn(
        `offer request ${requestId}: no listing deal is linked to it; status "${status}" not shown`,
      );
      return 'unknown_request';
    }
    return this.turns.run(turnOf(crm.brokerageId), () =>
      this.show(
        crm,
        requestId,
        dealId,
        { status, readAt: options.readAt, inventoryId: options.inventoryId },
        options.dryRun === true,
      ),
    );
  }

  // The create's write-back: the deal's first status rides in the one CRM write that carries the
  // request id (`write` gets the status property to add, or none). Taken in the same turn as every
  // other status write, the create's answer (read at `readAt`, the send) never goes over a status
  // another writer showed while the create was answered: a reconcile on another worker that read
  // `active` from the active list, whose link would otherwise say `active` while the deal said
  // `in_review`, and nothing would look again.
  async showWithCreate(
    brokerageId: string,
    requestId: string,
    dealId: string,
    first: { status?: string; readAt: Date },
    write: (status: Record<string, string>) => Promise<void>,
  ): Promise<void> {
    await this.turns.run(turnOf(brokerageId), async () => {
      // Any status shown already was read after the create was sent: the request did not exist before.
      const shown = await this.links.find(brokerageId, LINK.requestStatus, requestId);
      const status = first.status;
      const due = !shown && status !== undefined && status !== '';
      await write(due ? { [DEAL.status]: status } : {});
      if (due)
        await this.links.upsertLinks(brokerageId, LINK.requestStatus, [
          { remoteId: requestId, crmId: dealId, contentHash: status, readAt: first.readAt },
        ]);
    });
  }

  private async show(
    crm: BrokerageCrm,
    requestId: number,
    dealId: string,
    next: { status: string; readAt?: Date; inventoryId?: number },
    dryRun: boolean,
  ): Promise<StatusOutcome> {
    const remoteId = String(requestId);
    const link = await this.links.find(crm.brokerageId, LINK.requestStatus, remoteId);
    const shown = link ? { status: link.contentHash, readAt: link.readAt } : undefined;
    const inventory = await this.inventoryDue(crm.brokerageId, remoteId, next.inventoryId);
    const statusDue = showsOver(shown, next, this.clock.now());
    if (!statusDue) {
      // The same status read again: the deal's data is at least that new.
      if (!dryRun && shown?.status === next.status && next.readAt)
        await this.links.noteRead(crm.brokerageId, LINK.requestStatus, [remoteId], next.readAt);
      if (inventory === undefined) return 'unchanged';
    }
    if (dryRun) return 'updated';
    const [written] = await crm.port.updateRecords('deal', [
      {
        id: dealId,
        properties: {
          ...(statusDue ? { [DEAL.status]: next.status } : {}),
          ...(inventory !== undefined ? { [DEAL.inventoryId]: inventory } : {}),
        },
      },
    ]);
    if (written && !written.ok) {
      await this.recordErrors.record({
        brokerageId: crm.brokerageId,
        recordKind: 'request',
        recordRef: remoteId,
        field: DEAL.status,
        message: `offer request ${requestId}: its status "${next.status}" could not be shown on listing deal ${dealId}: ${errorMessage(written.error)}`,
        code: written.error.code,
      });
      return 'failed';
    }
    await this.recordErrors.resolve(crm.brokerageId, 'request', remoteId);
    if (inventory !== undefined)
      await this.links.upsertLinks(crm.brokerageId, LINK.requestInventory, [
        { remoteId, crmId: dealId, contentHash: inventory },
      ]);
    if (!statusDue) return 'updated';
    await this.links.upsertLinks(
      crm.brokerageId,
      LINK.requestStatus,
      [{ remoteId, crmId: dealId, contentHash: next.status, readAt: keptReadAt(shown, next) }],
      this.history.requestShownEntries(
        crm.brokerageId,
        requestId,
        dealId,
        next.status,
        next.status === 'under_contract',
      ),
    );
    return 'updated';
  }
}

import type { CrmRecord } from '../../src/crm';
import { DEAL } from '../../src/sync/common/listing-deal.properties';
import { OFFER } from '../../src/sync/offers/offer-record.properties';
import type { SyncTestApp } from './sync-app';
import { SyncAgent, VALID_LISTING } from './sync-agent';
import { SandboxControl } from './sync-sandbox';
import { applyNewEvents } from './apply-events';

export const DEAL_PROPS = Object.values(DEAL);
export const OFFER_PROPS = [...Object.values(OFFER), 'dealname', 'amount'];

// Steps the seller-side tests share: a listing deal sent and approved, events delivered and applied.
export class SellerFlowSteps {
  readonly agent: SyncAgent;
  readonly sandbox: SandboxControl;

  constructor(private readonly t: SyncTestApp) {
    this.agent = new SyncAgent(t.hubspot.url, t.hubspot.token, t.crm);
    this.sandbox = new SandboxControl(t.sandbox.controlUrl);
  }

  // A listing deal that became an offer request, approved by the service.
  async activeRequest(
    extra: Record<string, string> = {},
  ): Promise<{ dealId: string; contactId: string; requestId: number }> {
    const { dealId, contactId } = await this.agent.listingDeal({ ...VALID_LISTING, ...extra });
    await this.agent.requestCashOffer(dealId);
    await this.t.run('crm-changes');
    await this.t.run('outbox-drain');
    const [request] = (await this.sandbox.requests()).filter((r) => r.offer_request_external_id === dealId);
    if (!request) throw new Error(`deal ${dealId} was not sent`);
    await this.sandbox.approve(request.offer_request_id);
    await this.applyEvents(1);
    return { dealId, contactId, requestId: request.offer_request_id };
  }

  // Waits until `count` new events are in the inbox, then runs one inbox-drain (apply-events.ts).
  applyEvents(count: number): Promise<void> {
    return applyNewEvents(this.t, count);
  }

  async offerRecord(offerId: number): Promise<CrmRecord | undefined> {
    const stored = this.t.hubspot.state.findByProperty('deals', OFFER.id, String(offerId));
    if (!stored) return undefined;
    const [record] = await this.t.crm.getRecords('deal', [stored.id], OFFER_PROPS, ['deal', 'contact']);
    return record;
  }

  stageKey(record: CrmRecord): string | undefined {
    return this.t.stages.resolve(record.pipelineId, record.stageId)?.stageKey;
  }
}

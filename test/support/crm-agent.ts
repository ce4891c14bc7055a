import {
  CASH_OFFERS_PIPELINE,
  CRM_ROLE,
  UNIQUE_OFFER_ID,
  type CrmProperties,
  type CrmRecord,
} from '../../src/crm';
import { DEAL } from '../../src/sync/common/listing-deal.properties';
import { OFFER } from '../../src/sync/offers/offer-record.properties';
import type { SyncTestApp } from './sync-app';
import type { CrmWorld } from './sync-crm-world';
import { waitFor } from './wait-for';
import { applyNewEvents } from './apply-events';
import { SandboxControl } from './sync-sandbox';

// What an agent does in the CRM, whichever CRM it is: properties in the port's words (role names
// such as crm:amount, the cash-offer and listing_* properties); the world turns them into the
// vendor's fields.
let sellers = 0;

export const NEUTRAL_LISTING: CrmProperties = {
  [CRM_ROLE.amount]: '425000',
  listing_street_number: '12',
  listing_street_name: 'Oak Street',
  listing_city: 'Austin',
  listing_state: 'TX',
  listing_postal_code: '78701',
  listing_mls_status: 'Active',
  listing_bedrooms: '3',
  listing_year_built: '1994',
  listing_agent_first_name: 'Dana',
  listing_agent_last_name: 'Reyes',
  listing_agent_email: 'dana@acme-realty.example',
};

export const NEUTRAL_DEAL_PROPS = Object.values(DEAL);
export const NEUTRAL_OFFER_PROPS = [...Object.values(OFFER), CRM_ROLE.name, CRM_ROLE.amount];

export class CrmAgent {
  constructor(private readonly world: CrmWorld) {}

  // A listing deal with its seller, not yet in the trigger stage.
  async listingDeal(properties: CrmProperties): Promise<{ dealId: string; contactId: string }> {
    const contactId = await this.world.createContact('Pat', 'Morgan', `seller${++sellers}@example.com`);
    const { pipelineId, initialStageId } = this.world.listings;
    const dealId = await this.world.createDeal('Listing', pipelineId, initialStageId);
    await this.update(dealId, properties);
    const [linked] = await this.world.port.associate([
      { from: { kind: 'deal', id: dealId }, to: { kind: 'contact', id: contactId } },
    ]);
    if (!linked.ok) throw linked.error;
    return { dealId, contactId };
  }

  async update(
    id: string,
    properties: CrmProperties,
    placement: { pipelineId?: string; stageId?: string } = {},
  ) {
    const [result] = await this.world.port.updateRecords('deal', [{ id, properties, ...placement }]);
    if (!result.ok) throw result.error;
  }

  async requestCashOffer(dealId: string): Promise<void> {
    const { pipelineId, triggerStageId } = this.world.listings;
    await this.update(dealId, {}, { pipelineId, stageId: triggerStageId });
  }

  async moveOffer(recordId: string, stage: string, properties: CrmProperties = {}): Promise<void> {
    await this.update(recordId, properties, {
      pipelineId: this.world.stages.pipelineId(CASH_OFFERS_PIPELINE),
      stageId: this.world.stages.stageId(CASH_OFFERS_PIPELINE, stage),
    });
  }

  async deal(id: string, properties: string[] = NEUTRAL_DEAL_PROPS): Promise<CrmRecord> {
    const [record] = await this.world.port.getRecords('deal', [id], properties, ['deal', 'contact']);
    if (!record) throw new Error(`deal ${id} not found`);
    return record;
  }

  // The offer record of an offer, found by its unique key, with its links.
  async offerRecord(offerId: number): Promise<CrmRecord | undefined> {
    const [found] = await this.world.port.findByUniqueValues('deal', UNIQUE_OFFER_ID, [String(offerId)], []);
    if (!found) return undefined;
    const [record] = await this.world.port.getRecords('deal', [found.id], NEUTRAL_OFFER_PROPS, [
      'deal',
      'contact',
    ]);
    return record;
  }

  stageKey(record: CrmRecord): string | undefined {
    return this.world.stages.resolve(record.pipelineId, record.stageId)?.stageKey;
  }
}

// Seller steps over the neutral agent: a listing deal sent and approved, events applied.
export class NeutralSellerSteps {
  readonly agent: CrmAgent;
  readonly sandbox: SandboxControl;

  constructor(private readonly t: SyncTestApp) {
    this.agent = new CrmAgent(t.world);
    this.sandbox = new SandboxControl(t.sandbox.controlUrl);
  }

  async activeRequest(
    extra: CrmProperties = {},
  ): Promise<{ dealId: string; contactId: string; requestId: number }> {
    const { dealId, contactId } = await this.agent.listingDeal({ ...NEUTRAL_LISTING, ...extra });
    await this.agent.requestCashOffer(dealId);
    await this.t.run('crm-changes');
    await this.t.run('outbox-drain');
    const [request] = (await this.sandbox.requests()).filter((r) => r.offer_request_external_id === dealId);
    if (!request) throw new Error(`deal ${dealId} was not sent`);
    await this.sandbox.approve(request.offer_request_id);
    await this.applyEvents(1);
    // A service whose create answer has no id (the spec's declared response): the deal learns it
    // once the request is listed, by the write-back's next try (the clock moved past its back-off).
    await waitFor(
      async () => {
        if ((await this.agent.deal(dealId)).properties[DEAL.requestId] === String(request.offer_request_id))
          return true;
        await this.t.advanceClock(10_000);
        await this.t.run('outbox-drain');
        return false;
      },
      { what: `deal ${dealId} to show request ${request.offer_request_id}`, timeoutMs: 30_000 },
    );
    return { dealId, contactId, requestId: request.offer_request_id };
  }

  // Waits until `count` new events are in the inbox, then runs one inbox-drain (apply-events.ts).
  applyEvents(count: number): Promise<void> {
    return applyNewEvents(this.t, count);
  }
}

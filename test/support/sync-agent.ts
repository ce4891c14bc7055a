import type { CrmAdapter, CrmProperties, CrmRecord } from '../../src/crm';
import { LISTINGS_PIPELINE, TRIGGER_STAGE } from './sync-app';

// What a listing agent does in HubSpot, through the emulator's API.
let sellers = 0;

export class SyncAgent {
  constructor(
    private readonly hubspotUrl: string,
    private readonly token: string,
    private readonly crm: CrmAdapter,
  ) {}

  async createRecord(type: 'deals' | 'contacts', properties: CrmProperties): Promise<string> {
    const res = await fetch(`${this.hubspotUrl}/crm/v3/objects/${type}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${this.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ properties }),
    });
    if (!res.ok) throw new Error(`create ${type}: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { id: string }).id;
  }

  // A listing deal with its seller contact, not yet in the trigger stage.
  async listingDeal(properties: CrmProperties): Promise<{ dealId: string; contactId: string }> {
    const contactId = await this.createRecord('contacts', {
      firstname: 'Pat',
      lastname: 'Morgan',
      email: `seller${++sellers}@example.com`,
    });
    const dealId = await this.createRecord('deals', {
      dealname: 'Listing',
      pipeline: LISTINGS_PIPELINE,
      dealstage: 'appointmentscheduled',
      ...properties,
    });
    const [linked] = await this.crm.associate([
      { from: { kind: 'deal', id: dealId }, to: { kind: 'contact', id: contactId } },
    ]);
    if (!linked.ok) throw linked.error;
    return { dealId, contactId };
  }

  async update(
    id: string,
    properties: CrmProperties,
    placement: { pipelineId?: string; stageId?: string } = {},
  ): Promise<void> {
    const [result] = await this.crm.updateRecords('deal', [{ id, properties, ...placement }]);
    if (!result.ok) throw result.error;
  }

  async requestCashOffer(dealId: string): Promise<void> {
    await this.update(dealId, {}, { pipelineId: LISTINGS_PIPELINE, stageId: TRIGGER_STAGE });
  }

  // The agent deletes a deal in HubSpot (it moves to the recycling bin: an API read no longer finds it).
  async deleteDeal(id: string): Promise<void> {
    const res = await fetch(`${this.hubspotUrl}/crm/v3/objects/deals/${id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${this.token}` },
    });
    if (res.status !== 204) throw new Error(`delete deal ${id}: ${res.status} ${await res.text()}`);
  }

  async deal(id: string, properties: string[]): Promise<CrmRecord> {
    const [record] = await this.crm.getRecords('deal', [id], properties, ['deal', 'contact']);
    if (!record) throw new Error(`deal ${id} not found`);
    return record;
  }
}

export const VALID_LISTING: CrmProperties = {
  amount: '425000',
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

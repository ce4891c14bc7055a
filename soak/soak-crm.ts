import { taskKeyIn, type SoakTask } from './soak-clocks';
import { httpJson } from './soak-http';
import {
  LISTINGS_PIPELINE,
  SOAK_AGENT,
  SOAK_CRM_TOKEN,
  TRIGGER_STAGE,
  type SimulatorsProcess,
} from './soak-processes';

// The scripted agent's hands in the CRM, one per CRM the soak runs against. Each reads and writes
// only through that CRM's public API (and, for the final check, the emulator's read-only control
// view), and shows records in one vocabulary: HubSpot's property names (`dealstage`, `pipeline`,
// `cash_offer_*`), which the Follow Up Boss agent translates from FUB's fields.

export interface CrmObject {
  id: string;
  properties: Record<string, string | null>;
  // When the CRM made the record (HubSpot's `createdAt`, Follow Up Boss's `created`): from then on
  // the agent can see it.
  createdAt?: string;
  // The deals and contacts it is associated with (HubSpot's associations; Follow Up Boss: a deal's
  // people, and the deals its linked-deals field names), as the final check reads them.
  associations?: { deal: string[]; contact: string[] };
}

// Labels setup-crm gives the offer-record pipeline and its stages (docs/crm-hubspot.md,
// docs/crm-followupboss.md).
export const OFFERS_PIPELINE_LABEL = 'Cash offers';
export const STAGE_LABELS = {
  incoming: 'Incoming',
  acceptRequested: 'Accept requested',
  accepted: 'Accepted',
  rejectRequested: 'Reject requested',
  rejected: 'Rejected',
  counterRequested: 'Counter requested',
  countered: 'Countered',
  counterRejected: 'Counter rejected',
  expired: 'Expired',
} as const;
export type StageKey = keyof typeof STAGE_LABELS;

export interface SoakPipeline {
  id: string;
  label: string;
  stages: { id: string; label: string }[];
}

export interface SoakCrm {
  pipelines(): Promise<SoakPipeline[]>;
  // A seller and their listing deal (not yet triggered); `fields` are listing_* and amount.
  createListing(n: number, fields: Record<string, string>): Promise<{ dealId: string; contactId: string }>;
  trigger(dealId: string): Promise<void>;
  // Edits listing_* fields of a listing deal (snake_case port names), as the agent does in the CRM.
  editListing(dealId: string, fields: Record<string, string>): Promise<void>;
  // Offer records as the agent reads them (public API, every page).
  offerRecords(): Promise<CrmObject[]>;
  // Moves a record to a stage, with counter fields (snake_case port names) when countering.
  move(recordId: string, pipelineId: string, stageId: string, fields: Record<string, string>): Promise<void>;
  // Every deal as stored, for the final check (the emulator's control view, not rate limited).
  allDeals(): Promise<CrmObject[]>;
  // Every task as stored, with the daemon's key read from its text (the control view).
  allTasks(): Promise<SoakTask[]>;
  // For a kept work dir: who wrote what on the deals and when, as the CRM keeps it, so a record left
  // in the wrong state can be traced to the write that left it so.
  writeHistory(): Promise<unknown>;
}

const OFFER_PROPERTIES = [
  'cash_offer_offer_id',
  'cash_offer_offer_request_ref',
  'cash_offer_offer_status',
  'cash_offer_offer_amount',
  'cash_offer_counter_status',
  'cash_offer_decision_error',
  'pipeline',
  'dealstage',
];

// The properties the soak's checks read on a deal (soak-checks.ts), whose history a kept dir holds.
const CHECKED_PROPERTIES = [
  ...OFFER_PROPERTIES,
  'cash_offer_request_id',
  'cash_offer_request_status',
  'cash_offer_offer_count',
  'cash_offer_best_offer',
];

export class HubSpotSoakCrm implements SoakCrm {
  private readonly auth = { authorization: `Bearer ${SOAK_CRM_TOKEN}` };

  constructor(private readonly sim: SimulatorsProcess) {}

  async pipelines(): Promise<SoakPipeline[]> {
    const { results } = await httpJson<{ results: SoakPipeline[] }>(
      'GET',
      `${this.sim.hubspotUrl}/crm/v3/pipelines/deals`,
      undefined,
      this.auth,
    );
    return results;
  }

  async createListing(
    n: number,
    fields: Record<string, string>,
  ): Promise<{ dealId: string; contactId: string }> {
    const contactId = await this.create('contacts', {
      firstname: 'Sam',
      lastname: `Seller${n}`,
      email: `soak-seller-${n}@example.com`,
    });
    const { amount, ...listing } = fields;
    const dealId = await this.create('deals', {
      dealname: `Soak listing ${n}`,
      pipeline: LISTINGS_PIPELINE,
      dealstage: 'appointmentscheduled',
      hubspot_owner_id: SOAK_AGENT.hubspot,
      amount,
      ...listing,
    });
    await httpJson(
      'PUT',
      `${this.sim.hubspotUrl}/crm/v4/objects/deals/${dealId}/associations/default/contacts/${contactId}`,
      undefined,
      this.auth,
    );
    return { dealId, contactId };
  }

  trigger(dealId: string): Promise<void> {
    return this.patch(dealId, { pipeline: LISTINGS_PIPELINE, dealstage: TRIGGER_STAGE });
  }

  editListing(dealId: string, fields: Record<string, string>): Promise<void> {
    return this.patch(dealId, fields);
  }

  async offerRecords(): Promise<CrmObject[]> {
    const all: CrmObject[] = [];
    let after: string | undefined;
    do {
      const page = await httpJson<{ results: CrmObject[]; paging?: { next?: { after: string } } }>(
        'GET',
        `${this.sim.hubspotUrl}/crm/v3/objects/deals?limit=100&properties=${OFFER_PROPERTIES.join(',')}${after ? `&after=${after}` : ''}`,
        undefined,
        this.auth,
      );
      all.push(...page.results);
      after = page.paging?.next?.after;
    } while (after);
    return all;
  }

  move(recordId: string, pipelineId: string, stageId: string, fields: Record<string, string>): Promise<void> {
    return this.patch(recordId, { ...fields, pipeline: pipelineId, dealstage: stageId });
  }

  async allDeals(): Promise<CrmObject[]> {
    const all: CrmObject[] = [];
    for (let offset = 0; ; offset += 500) {
      const page = await httpJson<{
        total: number;
        results: (CrmObject & { associations?: { deals?: string[]; contacts?: string[] } })[];
      }>('GET', `${this.sim.hubspotUrl}/__control/objects/deals?limit=500&offset=${offset}`);
      all.push(
        ...page.results.map(({ associations, ...deal }) => ({
          ...deal,
          associations: { deal: associations?.deals ?? [], contact: associations?.contacts ?? [] },
        })),
      );
      if (page.results.length < 500) return all;
    }
  }

  // HubSpot keeps each property's values with when and by whom (propertiesWithHistory on a batch read,
  // https://developers.hubspot.com/docs/api-reference/latest/crm/objects/objects/batch/get-objects).
  async writeHistory(): Promise<unknown> {
    const ids = (await this.allDeals()).map((d) => d.id);
    const history: unknown[] = [];
    // HubSpot reads the histories of at most 50 records a batch (its 400 says so).
    for (let i = 0; i < ids.length; i += 50) {
      const { results } = await httpJson<{ results: unknown[] }>(
        'POST',
        `${this.sim.hubspotUrl}/crm/v3/objects/deals/batch/read`,
        {
          inputs: ids.slice(i, i + 50).map((id) => ({ id })),
          properties: [],
          propertiesWithHistory: CHECKED_PROPERTIES,
        },
        this.auth,
      );
      history.push(...results);
    }
    return history;
  }

  // HubSpot's task object (https://developers.hubspot.com/docs/api/crm/tasks): the key is in the
  // notes (hs_task_body), done when hs_task_status is COMPLETED.
  async allTasks(): Promise<SoakTask[]> {
    const all: SoakTask[] = [];
    for (let offset = 0; ; offset += 500) {
      const page = await httpJson<{ total: number; results: CrmObject[] }>(
        'GET',
        `${this.sim.hubspotUrl}/__control/objects/tasks?limit=500&offset=${offset}`,
      );
      all.push(
        ...page.results.map((t) => ({
          id: t.id,
          key: taskKeyIn(t.properties.hs_task_body),
          completed: t.properties.hs_task_status === 'COMPLETED',
        })),
      );
      if (page.results.length < 500) return all;
    }
  }

  private async create(type: 'contacts' | 'deals', properties: Record<string, string>): Promise<string> {
    const body = await httpJson<{ id: string }>(
      'POST',
      `${this.sim.hubspotUrl}/crm/v3/objects/${type}`,
      { properties },
      this.auth,
    );
    return body.id;
  }

  private async patch(id: string, properties: Record<string, string>): Promise<void> {
    await httpJson('PATCH', `${this.sim.hubspotUrl}/crm/v3/objects/deals/${id}`, { properties }, this.auth);
  }
}

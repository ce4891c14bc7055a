import type { ContactShown, MarketplaceRecord } from './buyer-soak-checks';
import type { SoakPipeline } from './soak-crm';
import { fubFieldName } from './soak-crm-fub';
import { httpJson } from './soak-http';
import { SOAK_CRM_TOKEN, SOAK_FUB_API_KEY, type SimulatorsProcess } from './soak-processes';

// The buyer agent's hands in a CRM (soak/buyer-soak.ts): it reads the marketplace records the daemon
// mirrors, makes buyer contacts, associates each with a listing and flags it to be submitted as a
// lead, all through the CRM's public API; the final check reads every record through the emulator's
// control view. Records are shown in the check's vocabulary (buyer-soak-checks.ts).
export interface BuyerSoakCrm {
  loadStages(): Promise<void>;
  // As the agent sees them: every record of the marketplace, read page by page.
  marketplaceRecords(): Promise<MarketplaceRecord[]>;
  // Every marketplace record as stored, for the final check.
  allMarketplaceRecords(): Promise<MarketplaceRecord[]>;
  createBuyer(contact: BuyerContact): Promise<string>;
  associate(contactId: string, dealId: string): Promise<void>;
  // The agent's "submit as buyer lead" tick box.
  flag(contactId: string): Promise<void>;
  // Every contact as stored: the lead id and error the daemon wrote, and whether the flag is up.
  contacts(): Promise<Map<string, ContactShown & { flagged: boolean }>>;
}

export const MARKETPLACE_PIPELINE_LABEL = 'Cash offer marketplace';
const STAGE_KEYS: Record<string, string> = { Active: 'active', 'No longer listed': 'no_longer_listed' };
const LISTING_PROPERTIES = [
  'cash_offer_listing_key',
  'cash_offer_listing_request_id',
  'cash_offer_listing_inventory_id',
  'cash_offer_listing_status',
  'cash_offer_listing_asking',
  'cash_offer_listing_address',
  'cash_offer_listing_postal_code',
  'pipeline',
  'dealstage',
];

export interface BuyerContact {
  firstname: string;
  lastname: string;
  email?: string;
  phone?: string;
}

interface HubSpotObject {
  id: string;
  properties: Record<string, string | null>;
}

// HubSpot's public API: https://developers.hubspot.com/docs/api/crm/deals, .../crm/contacts,
// .../crm/associations/associations-v4.
export class HubSpotBuyerCrm implements BuyerSoakCrm {
  private readonly auth = { authorization: `Bearer ${SOAK_CRM_TOKEN}` };
  private stageKeys?: Map<string, string>;

  constructor(private readonly sim: SimulatorsProcess) {}

  async loadStages(): Promise<void> {
    const { results } = await httpJson<{ results: SoakPipeline[] }>(
      'GET',
      `${this.sim.hubspotUrl}/crm/v3/pipelines/deals`,
      undefined,
      this.auth,
    );
    const pipeline = results.find((p) => p.label === MARKETPLACE_PIPELINE_LABEL);
    if (!pipeline) throw new Error(`no "${MARKETPLACE_PIPELINE_LABEL}" pipeline: did setup-crm run?`);
    this.stageKeys = new Map(pipeline.stages.map((s) => [s.id, STAGE_KEYS[s.label] ?? s.label]));
  }

  async marketplaceRecords(): Promise<MarketplaceRecord[]> {
    const all: HubSpotObject[] = [];
    let after: string | undefined;
    do {
      const page = await httpJson<{ results: HubSpotObject[]; paging?: { next?: { after: string } } }>(
        'GET',
        `${this.sim.hubspotUrl}/crm/v3/objects/deals?limit=100&properties=${LISTING_PROPERTIES.join(',')}${after ? `&after=${after}` : ''}`,
        undefined,
        this.auth,
      );
      all.push(...page.results);
      after = page.paging?.next?.after;
    } while (after);
    return all.flatMap((d) => this.toRecord(d));
  }

  async allMarketplaceRecords(): Promise<MarketplaceRecord[]> {
    return (await this.control('deals')).flatMap((d) => this.toRecord(d));
  }

  async createBuyer(contact: BuyerContact): Promise<string> {
    const properties = Object.fromEntries(Object.entries(contact).filter(([, v]) => v !== undefined));
    const body = await httpJson<{ id: string }>(
      'POST',
      `${this.sim.hubspotUrl}/crm/v3/objects/contacts`,
      { properties },
      this.auth,
    );
    return body.id;
  }

  async associate(contactId: string, dealId: string): Promise<void> {
    await httpJson(
      'PUT',
      `${this.sim.hubspotUrl}/crm/v4/objects/deals/${dealId}/associations/default/contacts/${contactId}`,
      undefined,
      this.auth,
    );
  }

  async flag(contactId: string): Promise<void> {
    await httpJson(
      'PATCH',
      `${this.sim.hubspotUrl}/crm/v3/objects/contacts/${contactId}`,
      { properties: { cash_offer_submit_lead: 'true' } },
      this.auth,
    );
  }

  async contacts(): Promise<Map<string, ContactShown & { flagged: boolean }>> {
    return new Map(
      (await this.control('contacts')).map((c) => [
        c.id,
        {
          id: c.id,
          leadId: c.properties.cash_offer_lead_id ?? '',
          error: c.properties.cash_offer_lead_error ?? '',
          flagged: c.properties.cash_offer_submit_lead === 'true',
        },
      ]),
    );
  }

  private toRecord(d: HubSpotObject): MarketplaceRecord[] {
    const p = d.properties;
    if (!p.cash_offer_listing_key) return [];
    const stage = p.dealstage ?? '';
    return [
      {
        id: d.id,
        key: p.cash_offer_listing_key,
        requestId: p.cash_offer_listing_request_id ?? '',
        inventoryId: p.cash_offer_listing_inventory_id ?? '',
        status: p.cash_offer_listing_status ?? '',
        asking: p.cash_offer_listing_asking ?? '',
        stage: this.stageKeys?.get(stage) ?? stage,
        address: p.cash_offer_listing_address ?? '',
        postalCode: p.cash_offer_listing_postal_code ?? '',
      },
    ];
  }

  private async control(type: 'deals' | 'contacts'): Promise<HubSpotObject[]> {
    const all: HubSpotObject[] = [];
    for (let offset = 0; ; offset += 500) {
      const page = await httpJson<{ results: HubSpotObject[] }>(
        'GET',
        `${this.sim.hubspotUrl}/__control/objects/${type}?limit=500&offset=${offset}`,
      );
      all.push(...page.results);
      if (page.results.length < 500) return all;
    }
  }
}

// A FUB value as text (ids and custom fields come as numbers or strings).
const text = (v: unknown): string => (typeof v === 'string' || typeof v === 'number' ? String(v) : '');

// Follow Up Boss's public /v1 API with the account's key (docs.followupboss.com: people, deals,
// pipelines): a buyer is a person, added to a marketplace deal by the deal's `peopleIds` (the list is
// replaced, so the people already on it are kept), flagged by the person's "Cash Offer Submit Lead"
// field; custom fields are named `custom` + the label's words.
export class FubBuyerCrm implements BuyerSoakCrm {
  private stageKeys?: Map<string, string>;

  constructor(private readonly sim: SimulatorsProcess) {}

  async loadStages(): Promise<void> {
    const body = await this.api<{ pipelines: { name: string; stages: { id: number; name: string }[] }[] }>(
      'GET',
      '/pipelines?limit=100',
    );
    const pipeline = body.pipelines.find((p) => p.name === MARKETPLACE_PIPELINE_LABEL);
    if (!pipeline) throw new Error(`no "${MARKETPLACE_PIPELINE_LABEL}" pipeline: did setup-crm run?`);
    this.stageKeys = new Map(pipeline.stages.map((s) => [String(s.id), STAGE_KEYS[s.name] ?? s.name]));
  }

  async marketplaceRecords(): Promise<MarketplaceRecord[]> {
    const all: Record<string, unknown>[] = [];
    let next: string | undefined;
    do {
      const page = await this.api<{ _metadata: { next?: string | null }; deals: Record<string, unknown>[] }>(
        'GET',
        `/deals?limit=100${next ? `&next=${encodeURIComponent(next)}` : ''}`,
      );
      all.push(...page.deals);
      next = page._metadata.next ?? undefined;
    } while (next);
    return all.flatMap((d) => this.toRecord(d));
  }

  async allMarketplaceRecords(): Promise<MarketplaceRecord[]> {
    const stored = await httpJson<Record<string, unknown>[]>('GET', `${this.sim.fubUrl}/__control/deals`);
    return stored.flatMap((d) => this.toRecord(d));
  }

  async createBuyer(contact: BuyerContact): Promise<string> {
    const person = await this.api<{ id: number }>('POST', '/people', {
      firstName: contact.firstname,
      lastName: contact.lastname,
      ...(contact.email ? { emails: [{ value: contact.email }] } : {}),
      ...(contact.phone ? { phones: [{ value: contact.phone }] } : {}),
    });
    return String(person.id);
  }

  async associate(contactId: string, dealId: string): Promise<void> {
    const deal = await this.api<{ people?: { id: number }[] }>('GET', `/deals/${dealId}`);
    const peopleIds = [...(deal.people ?? []).map((p) => p.id), Number(contactId)];
    await this.api('PUT', `/deals/${dealId}`, { peopleIds });
  }

  async flag(contactId: string): Promise<void> {
    await this.api('PUT', `/people/${contactId}`, { [fubFieldName('cash_offer_submit_lead')]: 'true' });
  }

  async contacts(): Promise<Map<string, ContactShown & { flagged: boolean }>> {
    const stored = await httpJson<Record<string, unknown>[]>('GET', `${this.sim.fubUrl}/__control/people`);
    return new Map(
      stored.map((p) => {
        const id = String(p.id);
        return [
          id,
          {
            id,
            leadId: text(p[fubFieldName('cash_offer_lead_id')]),
            error: text(p[fubFieldName('cash_offer_lead_error')]),
            flagged: text(p[fubFieldName('cash_offer_submit_lead')]) === 'true',
          },
        ];
      }),
    );
  }

  private toRecord(d: Record<string, unknown>): MarketplaceRecord[] {
    const field = (name: string): string => text(d[fubFieldName(name)]);
    const key = field('cash_offer_listing_key');
    if (!key) return [];
    const stage = text(d.stageId);
    return [
      {
        id: text(d.id),
        key,
        requestId: field('cash_offer_listing_request_id'),
        inventoryId: field('cash_offer_listing_inventory_id'),
        status: field('cash_offer_listing_status'),
        asking: field('cash_offer_listing_asking'),
        stage: this.stageKeys?.get(stage) ?? stage,
        address: field('cash_offer_listing_address'),
        postalCode: field('cash_offer_listing_postal_code'),
      },
    ];
  }

  private api<T>(method: string, path: string, body?: unknown): Promise<T> {
    return httpJson<T>(method, `${this.sim.fubUrl}/v1${path}`, body, {
      authorization: `Basic ${Buffer.from(`${SOAK_FUB_API_KEY}:`).toString('base64')}`,
    });
  }
}

import { taskKeyIn, type SoakTask } from './soak-clocks';
import { httpJson } from './soak-http';
import { SOAK_AGENT } from './soak-processes';
import type { CrmObject, SoakCrm, SoakPipeline } from './soak-crm';

// The agent in Follow Up Boss, through the emulator's public /v1 API (HTTP Basic with the account's
// API key; docs/crm-followupboss.md, "What an agent does in Follow Up Boss"). FUB names a custom field
// after its label, `cash_offer_offer_id` is `customCashOfferOfferId`; records are shown to the soak
// in the port's snake_case names, with `dealstage` and `pipeline` for FUB's `stageId` and `pipelineId`.

export interface FubAccount {
  url: string; // the emulator's root: API under /v1, control under /__control
  apiKey: string;
  sellersPipelineId: string;
  initialStageId: string;
  triggerStageId: string;
}

export function fubFieldName(portName: string): string {
  return `custom${portName
    .split('_')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('')}`;
}

export function portFieldName(fubName: string): string {
  return fubName
    .slice('custom'.length)
    .replace(/(?!^)([A-Z])/g, '_$1')
    .toLowerCase();
}

// A FUB deal (API view or stored record) in the soak's vocabulary.
function asCrmObject(deal: Record<string, unknown>): CrmObject {
  const properties: Record<string, string | null> = {};
  const text = (v: unknown): string | null =>
    v === null || v === undefined
      ? null
      : typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean'
        ? String(v)
        : JSON.stringify(v);
  for (const [k, v] of Object.entries(deal))
    if (/^custom[A-Z]/.test(k)) properties[portFieldName(k)] = text(v);
  properties.dealstage = text(deal.stageId);
  properties.pipeline = text(deal.pipelineId);
  properties.dealname = text(deal.name);
  const created = text(deal.created);
  const people = Array.isArray(deal.peopleIds) ? deal.peopleIds.map(String) : [];
  const linked = (properties.cash_offer_linked_deals ?? '')
    .split(',')
    .map((id) => id.trim())
    .filter(Boolean);
  return {
    id: String(deal.id),
    properties,
    associations: { deal: linked, contact: people },
    ...(created ? { createdAt: created } : {}),
  };
}

// Which FUB pipelines exist, before any brokerage file is written (the listings pipeline and its
// trigger stage are found by name, as an admin would).
export async function fubSellersPipeline(
  url: string,
  apiKey: string,
): Promise<Pick<FubAccount, 'sellersPipelineId' | 'initialStageId' | 'triggerStageId'>> {
  const pipelines = await new FubSoakCrm({
    url,
    apiKey,
    sellersPipelineId: '',
    initialStageId: '',
    triggerStageId: '',
  }).pipelines();
  const sellers = pipelines.find((p) => p.label === 'Sellers');
  const stage = (label: string): string => {
    const found = sellers?.stages.find((s) => s.label === label);
    if (!found) throw new Error(`the FUB emulator has no "Sellers" pipeline with a "${label}" stage`);
    return found.id;
  };
  return {
    sellersPipelineId: sellers!.id,
    initialStageId: stage('Listing Appointment'),
    triggerStageId: stage('Request Cash Offer'),
  };
}

export class FubSoakCrm implements SoakCrm {
  private numberFields?: Set<string>;

  constructor(private readonly account: FubAccount) {}

  async pipelines(): Promise<SoakPipeline[]> {
    const body = await this.api<{
      pipelines: { id: number; name: string; stages: { id: number; name: string }[] }[];
    }>('GET', '/pipelines?limit=100');
    return body.pipelines.map((p) => ({
      id: String(p.id),
      label: p.name,
      stages: p.stages.map((s) => ({ id: String(s.id), label: s.name })),
    }));
  }

  async createListing(
    n: number,
    fields: Record<string, string>,
  ): Promise<{ dealId: string; contactId: string }> {
    const person = await this.api<{ id: number }>('POST', '/people', {
      firstName: 'Sam',
      lastName: `Seller${n}`,
      emails: [{ value: `soak-seller-${n}@example.com` }],
      assignedUserId: SOAK_AGENT.followupboss,
    });
    const { amount, ...listing } = fields;
    const deal = await this.api<{ id: number }>('POST', '/deals', {
      name: `Soak listing ${n}`,
      stageId: Number(this.account.initialStageId),
      price: Number(amount),
      peopleIds: [person.id],
      ...(await this.customFields(listing)),
    });
    return { dealId: String(deal.id), contactId: String(person.id) };
  }

  async trigger(dealId: string): Promise<void> {
    await this.api('PUT', `/deals/${dealId}`, { stageId: Number(this.account.triggerStageId) });
  }

  async editListing(dealId: string, fields: Record<string, string>): Promise<void> {
    await this.api('PUT', `/deals/${dealId}`, await this.customFields(fields));
  }

  // The stage decides the pipeline in FUB: only stageId is written.
  async move(
    recordId: string,
    _pipelineId: string,
    stageId: string,
    fields: Record<string, string>,
  ): Promise<void> {
    await this.api('PUT', `/deals/${recordId}`, {
      ...(await this.customFields(fields)),
      stageId: Number(stageId),
    });
  }

  async offerRecords(): Promise<CrmObject[]> {
    const all: CrmObject[] = [];
    let next: string | undefined;
    do {
      const page = await this.api<{ _metadata: { next?: string | null }; deals: Record<string, unknown>[] }>(
        'GET',
        `/deals?limit=100${next ? `&next=${encodeURIComponent(next)}` : ''}`,
      );
      all.push(...page.deals.map(asCrmObject));
      next = page._metadata.next ?? undefined;
    } while (next);
    return all;
  }

  async allDeals(): Promise<CrmObject[]> {
    const stored = await httpJson<Record<string, unknown>[]>('GET', `${this.account.url}/__control/deals`);
    return stored.map(asCrmObject);
  }

  // FUB keeps no history of a deal's values, so the emulator's own log of the writes it took, each
  // with its body and whether the daemon (a registered system) or an agent made it.
  writeHistory(): Promise<unknown> {
    return httpJson<unknown[]>('GET', `${this.account.url}/__control/writes`);
  }

  // FUB's /v1/tasks: the key ends the name (a task has no description), isCompleted as stored.
  async allTasks(): Promise<SoakTask[]> {
    const stored = await httpJson<{ id: number; name?: string; isCompleted?: unknown }[]>(
      'GET',
      `${this.account.url}/__control/tasks`,
    );
    return stored.map((t) => ({
      id: String(t.id),
      key: taskKeyIn(t.name),
      completed: t.isCompleted === true || t.isCompleted === 1,
    }));
  }

  // Port names to FUB custom fields; number fields (learned once from /v1/dealCustomFields, as the
  // daemon's adapter does) are sent as JSON numbers.
  private async customFields(fields: Record<string, string>): Promise<Record<string, string | number>> {
    if (!this.numberFields) {
      const numbers = new Set<string>();
      for (let offset = 0; ; offset += 100) {
        const page = await this.api<{ dealCustomfields: { name: string; type: string }[] }>(
          'GET',
          `/dealCustomFields?limit=100&offset=${offset}`,
        );
        for (const f of page.dealCustomfields) if (f.type === 'number') numbers.add(f.name);
        if (page.dealCustomfields.length < 100) break;
      }
      this.numberFields = numbers;
    }
    const numbers = this.numberFields;
    return Object.fromEntries(
      Object.entries(fields).map(([k, v]) => {
        const name = fubFieldName(k);
        return [name, numbers.has(name) ? Number(v) : v];
      }),
    );
  }

  private api<T>(method: string, path: string, body?: unknown): Promise<T> {
    return httpJson<T>(method, `${this.account.url}/v1${path}`, body, {
      authorization: `Basic ${Buffer.from(`${this.account.apiKey}:`).toString('base64')}`,
    });
  }
}

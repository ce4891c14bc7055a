import { Clock, SystemClock } from '../../common/clock';
import { CrmError } from '../crm.error';
import { CrmAdapter, type CrmChangeSubscriptionReport } from '../crm.port';
import type {
  CrmAssociationPair,
  CrmAssociationResult,
  CrmChangePage,
  CrmKind,
  CrmNoteInput,
  CrmPipeline,
  CrmPropertyLookup,
  CrmRecord,
  CrmRecordRef,
  CrmTask,
  CrmTaskInput,
  CrmUpdateInput,
  CrmUpsertInput,
  CrmWriteResult,
  ReadChangesOptions,
} from '../crm.types';
import type { CrmSchemaReport, CrmSchemaSpec } from '../crm-schema.types';
import { FUB_DEAL_FIELDS, FUB_RESOURCE, LINKED_DEALS_FIELD, MAX_PAGE } from './followupboss.constants';
import type { FollowUpBossAdapterOptions, ResolvedFollowUpBossOptions } from './followupboss.options';
import { resolveFollowUpBossOptions } from './followupboss.options';
import { FollowUpBossChangeReader } from './followupboss-change.reader';
import { fubFieldName, isCustomName } from './followupboss-field-names';
import { FollowUpBossHttpClient } from './followupboss-http.client';
import { dealLinks, linkedDealIds, toCrmRecord } from './followupboss-record.mapper';
import { FollowUpBossRecordWriter } from './followupboss-record.writer';
import { FollowUpBossSchemaInstaller } from './followupboss-schema.installer';
import { FollowUpBossTaskStore } from './followupboss-task.store';
import { FollowUpBossWebhookSubscriber } from './followupboss-webhook.subscriber';
import type { FubDeal, FubPage, FubRecord } from './followupboss.wire';

// The CRM port on Follow Up Boss's REST API v1 (no official SDK; axios). One instance per FUB
// account: it owns that account's rate limit.
export class FollowUpBossCrmAdapter extends CrmAdapter {
  readonly options: ResolvedFollowUpBossOptions;
  private readonly http: FollowUpBossHttpClient;
  private readonly changes: FollowUpBossChangeReader;
  private readonly writer: FollowUpBossRecordWriter;
  private readonly schema: FollowUpBossSchemaInstaller;
  private readonly webhooks: FollowUpBossWebhookSubscriber;
  private readonly tasks: FollowUpBossTaskStore;
  private numbers?: Promise<Record<CrmKind, ReadonlySet<string>>>;

  constructor(
    options: FollowUpBossAdapterOptions,
    private readonly clock: Clock = new SystemClock(),
  ) {
    super();
    this.options = resolveFollowUpBossOptions(options);
    this.http = new FollowUpBossHttpClient(this.options);
    this.changes = new FollowUpBossChangeReader(this.http, this.options, (records, raw, o) =>
      this.attach(o.kind, records, raw, o.withAssociations),
    );
    this.writer = new FollowUpBossRecordWriter(
      this.http,
      this.options.writeConcurrency,
      async (kind) => (await this.numberFields())[kind],
    );
    this.schema = new FollowUpBossSchemaInstaller(this.http, () => (this.numbers = undefined));
    this.webhooks = new FollowUpBossWebhookSubscriber(this.http, Boolean(this.options.systemKey));
    this.tasks = new FollowUpBossTaskStore(this.http, (about) => this.personOf([about]));
  }

  // HTTP calls made so far (attempts, retries included), for metrics and benchmarks.
  get callCount(): number {
    return this.http.calls;
  }

  get changeOverlapMs(): number {
    return this.options.overlapMs;
  }

  readChanges(options: ReadChangesOptions): AsyncIterable<CrmChangePage> {
    return this.changes.read(options);
  }

  async getRecords(
    kind: CrmKind,
    ids: string[],
    properties: string[],
    withAssociations?: CrmKind[],
  ): Promise<CrmRecord[]> {
    const records: CrmRecord[] = [];
    const wanted = [...new Set(ids)].filter((id) => /^\d+$/.test(id));
    for (let start = 0; start < wanted.length; start += MAX_PAGE) {
      const chunk = wanted.slice(start, start + MAX_PAGE);
      const resource = FUB_RESOURCE[kind];
      const page = await this.http.call<FubPage>({
        method: 'GET',
        path: `/${resource}`,
        query: { id: chunk.join(','), fields: 'allFields', limit: MAX_PAGE },
        what: `read ${chunk.length} ${kind}s`,
        idempotent: true,
      });
      const raw = ((page[resource] as FubRecord[] | undefined) ?? []).filter((r) =>
        chunk.includes(String(r.id)),
      );
      const batch = raw.map((r) => toCrmRecord(kind, r, properties));
      await this.attach(kind, batch, raw, withAssociations);
      records.push(...batch);
    }
    return records;
  }

  async findByUniqueValues(
    kind: CrmKind,
    uniqueProperty: string,
    values: string[],
    properties: string[],
  ): Promise<CrmRecord[]> {
    const records: CrmRecord[] = [];
    for (const value of [...new Set(values)]) {
      const found = await this.writer.findAll(kind, uniqueProperty, value);
      records.push(...found.map((r) => toCrmRecord(kind, r, [...properties, uniqueProperty])));
    }
    return records;
  }

  upsertRecords(kind: CrmKind, uniqueProperty: string, inputs: CrmUpsertInput[]): Promise<CrmWriteResult[]> {
    return this.writer.upsert(kind, uniqueProperty, inputs);
  }

  updateRecords(kind: CrmKind, inputs: CrmUpdateInput[]): Promise<CrmWriteResult[]> {
    return this.writer.update(kind, inputs);
  }

  // FUB links a deal to its people (peopleIds) and knows no deal-to-deal link: that one is kept in
  // the adapter's own custom field. Each pair is a read and an update of the deal.
  async associate(pairs: CrmAssociationPair[]): Promise<CrmAssociationResult[]> {
    const results: CrmAssociationResult[] = [];
    for (const pair of pairs) {
      const [deal, other] = pair.from.kind === 'deal' ? [pair.from, pair.to] : [pair.to, pair.from];
      const label = `associate ${pair.from.kind} ${pair.from.id} -> ${pair.to.kind} ${pair.to.id}`;
      try {
        if (deal.kind !== 'deal')
          throw new CrmError('INVALID_RECORD', 'Follow Up Boss links people only through deals');
        const current = await this.http.call<FubDeal>({
          method: 'GET',
          path: `/deals/${encodeURIComponent(deal.id)}`,
          query: { fields: 'allFields' },
          what: `read deal ${deal.id}`,
          idempotent: true,
          record: deal.id,
        });
        const links = dealLinks(current);
        const body =
          other.kind === 'contact'
            ? links.contact.includes(other.id)
              ? undefined
              : { peopleIds: [...links.contact, other.id].map(Number) }
            : linkedDealIds(current).includes(other.id)
              ? undefined
              : { [fubFieldName(LINKED_DEALS_FIELD)]: [...links.deal, other.id].join(',') };
        if (body)
          await this.http.call({
            method: 'PUT',
            path: `/deals/${encodeURIComponent(deal.id)}`,
            body,
            what: label,
            idempotent: true,
            record: deal.id,
          });
        results.push({ pair, ok: true });
      } catch (error) {
        const crmError = error instanceof CrmError ? error : new CrmError('UNAVAILABLE', String(error));
        results.push({ pair, ok: false, error: crmError.forRecord(pair.from.id, label) });
      }
    }
    return results;
  }

  // FUB notes belong to a person (POST /v1/notes requires personId, crm-apis.md B6): a note on a
  // deal goes on the deal's first person. Not idempotent: only a 429 is retried.
  async addNote(note: CrmNoteInput): Promise<{ id: string }> {
    const personId = await this.personOf(note.attachTo);
    const dealRef = note.attachTo.find((r) => r.kind === 'deal');
    if (!personId)
      throw new CrmError(
        'INVALID_RECORD',
        'add a note: Follow Up Boss keeps notes on people, and none is linked',
        {
          record: dealRef?.id,
        },
      );
    const when = (note.timestamp ?? this.clock.now()).toISOString();
    const created = await this.http.call<{ id: number }>({
      method: 'POST',
      path: '/notes',
      body: { personId: Number(personId), subject: `Cash Offer (${when})`, body: note.body, isHtml: false },
      what: 'add a note',
      idempotent: false,
    });
    return { id: String(created.id) };
  }

  // FUB tasks belong to a person too: a task about a deal goes on the deal's first person.
  createTask(task: CrmTaskInput): Promise<{ id: string }> {
    return this.tasks.create(task);
  }

  findTasks(about: CrmRecordRef): Promise<CrmTask[]> {
    return this.tasks.find(about);
  }

  completeTask(id: string): Promise<void> {
    return this.tasks.complete(id);
  }

  // The person something about these records goes on: a named person, else the deal's first.
  private async personOf(refs: CrmRecordRef[]): Promise<string | undefined> {
    const personId = refs.find((r) => r.kind === 'contact')?.id;
    if (personId) return personId;
    const dealRef = refs.find((r) => r.kind === 'deal');
    if (!dealRef) return undefined;
    const [deal] = await this.getRecords('deal', [dealRef.id], [], ['contact']);
    return deal?.associations?.contact?.[0];
  }

  // Deals have pipelines; FUB's person stages (/v1/stages) are not pipelines of the port.
  async listPipelines(kind: CrmKind): Promise<CrmPipeline[]> {
    if (kind !== 'deal') return [];
    const pipelines = await this.schema.pipelines();
    return [...pipelines]
      .sort((a, b) => (a.orderWeight ?? 0) - (b.orderWeight ?? 0) || a.id - b.id)
      .map((p) => ({
        id: String(p.id),
        label: p.name,
        stages: [...p.stages]
          .sort((a, b) => (a.orderWeight ?? 0) - (b.orderWeight ?? 0) || a.id - b.id)
          .map((s) => ({ id: String(s.id), label: s.name })),
      }));
  }

  // A custom name is looked up in the kind's custom fields (GET /v1/dealCustomFields for deals,
  // /v1/customFields for people, crm-apis.md B3); any other deal name must be one of a deal's own
  // fields. A person's own fields are not listed anywhere: that answer is "cannot tell".
  override async findProperty(kind: CrmKind, name: string): Promise<CrmPropertyLookup | undefined> {
    const crmName = fubFieldName(name);
    const custom = isCustomName(name) || /^custom[A-Z]/.test(name);
    if (!custom && kind !== 'deal') return undefined;
    const fields = (await this.schema.customFields(kind)).map((f) => ({ name: f.name, label: f.label }));
    return {
      crmName,
      exists: custom ? fields.some((f) => f.name === crmName) : FUB_DEAL_FIELDS.has(name),
      custom: fields,
    };
  }

  ensureSchema(spec: CrmSchemaSpec): Promise<CrmSchemaReport> {
    return this.schema.ensure(spec);
  }

  override subscribeToChanges(url: string): Promise<CrmChangeSubscriptionReport> {
    return this.webhooks.subscribe(url);
  }

  private async attach(
    kind: CrmKind,
    records: CrmRecord[],
    raw: FubRecord[],
    withAssociations: CrmKind[] | undefined,
  ): Promise<void> {
    if (!withAssociations || withAssociations.length === 0) return;
    const byId = new Map(raw.map((r) => [String(r.id), r]));
    for (const record of records) {
      const source = byId.get(record.id);
      if (!source) continue;
      record.associations = {};
      if (kind === 'deal') {
        const links = dealLinks(source);
        if (withAssociations.includes('contact')) record.associations.contact = links.contact;
        if (withAssociations.includes('deal')) record.associations.deal = links.deal;
      } else if (withAssociations.includes('deal')) {
        record.associations.deal = await this.dealsOf(record.id);
      }
      if (withAssociations.includes('contact') && kind === 'contact') record.associations.contact = [];
    }
  }

  // A person's deals: FUB filters deals by personId (crm-apis.md B6).
  private async dealsOf(personId: string): Promise<string[]> {
    const page = await this.http.call<FubPage>({
      method: 'GET',
      path: '/deals',
      query: { personId, limit: MAX_PAGE },
      what: `read the deals of person ${personId}`,
      idempotent: true,
    });
    return ((page.deals as FubDeal[] | undefined) ?? []).map((d) => String(d.id));
  }

  // Custom fields of type number (and a deal's price), so writes send numbers FUB accepts.
  private numberFields(): Promise<Record<CrmKind, ReadonlySet<string>>> {
    this.numbers ??= (async () => {
      const of = async (kind: CrmKind): Promise<Set<string>> =>
        new Set((await this.schema.customFields(kind)).filter((f) => f.type === 'number').map((f) => f.name));
      const deal = await of('deal');
      deal.add('price');
      return { deal, contact: await of('contact') };
    })().catch((error: unknown) => {
      this.numbers = undefined;
      throw error;
    });
    return this.numbers;
  }
}

import type { CrmKind } from '../crm.types';
import { madeOrFound } from '../made-or-found';
import type {
  CrmPropertySpec,
  CrmPropertyType,
  CrmSchemaItemReport,
  CrmSchemaReport,
  CrmSchemaSpec,
  CrmStageMapData,
} from '../crm-schema.types';
import { CASH_OFFER_GROUP } from '../crm-schema';
import {
  FUB_CUSTOM_FIELDS,
  FUB_CUSTOM_FIELDS_KEY,
  LINKED_DEALS_FIELD,
  MAX_PAGE,
} from './followupboss.constants';
import { fubFieldLabel, fubFieldName, isCustomName } from './followupboss-field-names';
import type { FollowUpBossHttpClient } from './followupboss-http.client';
import type { FubCustomField, FubPage, FubPipeline } from './followupboss.wire';

// FUB's custom field types are text, date, number and dropdown (crm-apis.md B3/B6). A yes/no is a
// dropdown of true/false; a date-time is text holding ISO-8601, since a FUB date has no time.
function fubType(type: CrmPropertyType): FubCustomField['type'] {
  if (type === 'number') return 'number';
  if (type === 'date') return 'date';
  if (type === 'bool' || type === 'enumeration') return 'dropdown';
  return 'text';
}

const LINKED_DEALS: CrmPropertySpec = {
  kind: 'deal',
  name: LINKED_DEALS_FIELD,
  label: 'Linked deals',
  type: 'string',
  group: CASH_OFFER_GROUP,
};

// setup-crm for Follow Up Boss: the custom fields (deal and person), then the pipelines and their
// stages, each found by name first, so running it again changes nothing. FUB has no property
// groups; the group is carried by every label's "Cash Offer" / "Listing" words instead.
export class FollowUpBossSchemaInstaller {
  constructor(
    private readonly http: FollowUpBossHttpClient,
    private readonly onFieldsChanged: () => void,
  ) {}

  async ensure(spec: CrmSchemaSpec): Promise<CrmSchemaReport> {
    const items: CrmSchemaItemReport[] = [];
    const properties = [...spec.properties, LINKED_DEALS].filter((p) => isCustomName(p.name));
    for (const kind of ['deal', 'contact'] as const) {
      const wanted = properties.filter((p) => p.kind === kind);
      if (wanted.length > 0) items.push(...(await this.ensureFields(kind, wanted)));
    }
    this.onFieldsChanged();
    const pipelines: CrmStageMapData = {};
    const existing = await this.pipelines();
    for (const pipeline of spec.pipelines) {
      const item = `pipeline ${pipeline.key}`;
      let found = existing.find((p) => same(p.name, pipeline.label));
      if (!found) {
        found = await madeOrFound(
          () =>
            this.http.call<FubPipeline>({
              method: 'POST',
              path: '/pipelines',
              body: { name: pipeline.label, stages: pipeline.stages.map((s) => ({ name: s.label })) },
              what: `create pipeline ${pipeline.label}`,
              idempotent: false,
            }),
          async () => (await this.pipelines()).find((p) => same(p.name, pipeline.label)),
        );
        items.push({ item, outcome: 'created' });
        for (const s of pipeline.stages)
          items.push({ item: `stage ${pipeline.key}.${s.key}`, outcome: 'created' });
      } else {
        const missing = pipeline.stages.filter((s) => !found!.stages.some((f) => same(f.name, s.label)));
        for (const s of pipeline.stages.filter((s) => !missing.includes(s)))
          items.push({ item: `stage ${pipeline.key}.${s.key}`, outcome: 'already present' });
        if (missing.length > 0) {
          found = await this.http.call<FubPipeline>({
            method: 'PUT',
            path: `/pipelines/${found.id}`,
            body: {
              name: found.name,
              stages: [
                ...found.stages.map((s) => ({ id: s.id, name: s.name })),
                ...missing.map((s) => ({ name: s.label })),
              ],
            },
            what: `add stages to pipeline ${pipeline.label}`,
            idempotent: true,
          });
          for (const s of missing) items.push({ item: `stage ${pipeline.key}.${s.key}`, outcome: 'created' });
        }
        items.push({ item, outcome: missing.length > 0 ? 'updated' : 'already present' });
      }
      const stages: Record<string, string> = {};
      for (const s of pipeline.stages) {
        const stage = found.stages.find((f) => same(f.name, s.label));
        if (stage) stages[s.key] = String(stage.id);
      }
      pipelines[pipeline.key] = { id: String(found.id), stages };
    }
    return { items, pipelines };
  }

  async customFields(kind: CrmKind): Promise<FubCustomField[]> {
    const fields: FubCustomField[] = [];
    for (let offset = 0; ; offset += MAX_PAGE) {
      const page = await this.http.call<FubPage>({
        method: 'GET',
        path: `/${FUB_CUSTOM_FIELDS[kind]}`,
        query: { limit: MAX_PAGE, offset },
        what: `list ${kind} custom fields`,
        idempotent: true,
      });
      const batch = (page[FUB_CUSTOM_FIELDS_KEY[kind]] as FubCustomField[] | undefined) ?? [];
      fields.push(...batch);
      if (batch.length < MAX_PAGE) return fields;
    }
  }

  async pipelines(): Promise<FubPipeline[]> {
    const page = await this.http.call<FubPage>({
      method: 'GET',
      path: '/pipelines',
      query: { limit: MAX_PAGE },
      what: 'list pipelines',
      idempotent: true,
    });
    return (page.pipelines as FubPipeline[] | undefined) ?? [];
  }

  private async ensureFields(kind: CrmKind, wanted: CrmPropertySpec[]): Promise<CrmSchemaItemReport[]> {
    const items: CrmSchemaItemReport[] = [];
    const have = new Set((await this.customFields(kind)).map((f) => f.name));
    for (const property of wanted) {
      const item = `property ${kind}.${property.name}`;
      const name = fubFieldName(property.name);
      if (have.has(name)) {
        items.push({ item, outcome: 'already present' });
        continue;
      }
      const type = fubType(property.type);
      const choices =
        property.type === 'bool'
          ? ['true', 'false']
          : property.type === 'enumeration'
            ? (property.options ?? []).map((o) => o.value)
            : undefined;
      await madeOrFound(
        () =>
          this.http.call<FubCustomField>({
            method: 'POST',
            path: `/${FUB_CUSTOM_FIELDS[kind]}`,
            body: { label: fubFieldLabel(property.name), type, ...(choices ? { choices } : {}) },
            what: `create ${kind} custom field ${name}`,
            idempotent: false,
          }),
        async () => (await this.customFields(kind)).find((f) => f.name === name),
      );
      have.add(name);
      items.push({ item, outcome: 'created', detail: `${name} (${type})` });
    }
    return items;
  }
}

const same = (a: string, b: string): boolean => a.trim().toLowerCase() === b.trim().toLowerCase();

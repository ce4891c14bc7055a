import type { Client } from '@hubspot/api-client';
import {
  PropertyCreateFieldTypeEnum,
  PropertyCreateTypeEnum,
} from '@hubspot/api-client/lib/codegen/crm/properties';
import type { Property, PropertyCreate, PropertyGroup } from '@hubspot/api-client/lib/codegen/crm/properties';
import type { Pipeline } from '@hubspot/api-client/lib/codegen/crm/pipelines';
import { CrmError } from '../crm.error';
import { madeOrFound } from '../made-or-found';
import type { CrmKind } from '../crm.types';
import type {
  CrmPipelineSpec,
  CrmPropertySpec,
  CrmPropertyType,
  CrmSchemaItemReport,
  CrmSchemaReport,
  CrmSchemaSpec,
  CrmStageSpec,
} from '../crm-schema.types';
import { HUBSPOT_OBJECT } from './hubspot.constants';
import type { HubSpotRequestRunner } from './hubspot-request.runner';

const TYPES: Record<CrmPropertyType, [PropertyCreateTypeEnum, PropertyCreateFieldTypeEnum]> = {
  string: [PropertyCreateTypeEnum.String, PropertyCreateFieldTypeEnum.Text],
  text: [PropertyCreateTypeEnum.String, PropertyCreateFieldTypeEnum.Textarea],
  number: [PropertyCreateTypeEnum.Number, PropertyCreateFieldTypeEnum.Number],
  bool: [PropertyCreateTypeEnum.Bool, PropertyCreateFieldTypeEnum.Booleancheckbox],
  date: [PropertyCreateTypeEnum.Date, PropertyCreateFieldTypeEnum.Date],
  datetime: [PropertyCreateTypeEnum.Datetime, PropertyCreateFieldTypeEnum.Date],
  enumeration: [PropertyCreateTypeEnum.Enumeration, PropertyCreateFieldTypeEnum.Select],
};

// Inputs per batch create: HubSpot's usual batch size (its reference shows no other for this call).
const PROPERTY_BATCH = 100;
// A batch refused for what one of its inputs says; any other failure is the call's, not an input's.
const REFUSED_INPUT: ReadonlySet<string> = new Set(['INVALID_RECORD', 'CONFLICT']);

const BOOL_OPTIONS = [
  { label: 'Yes', value: 'true' },
  { label: 'No', value: 'false' },
];

// setup-crm for HubSpot: find or create groups, properties, pipelines and stages. Pipelines and
// stages have HubSpot-assigned ids, so they are matched by label and the ids reported.
export class HubSpotSchemaInstaller {
  constructor(
    private readonly client: Client,
    private readonly runner: HubSpotRequestRunner,
  ) {}

  async ensure(spec: CrmSchemaSpec): Promise<CrmSchemaReport> {
    const items: CrmSchemaItemReport[] = [];
    const kinds = [
      ...new Set<CrmKind>([...spec.groups.map((g) => g.kind), ...spec.properties.map((p) => p.kind)]),
    ];
    for (const kind of kinds) {
      await this.ensureGroups(kind, spec, items);
      await this.ensureProperties(
        kind,
        spec.properties.filter((p) => p.kind === kind),
        items,
      );
    }
    const report: CrmSchemaReport = { items, pipelines: {} };
    for (const pipeline of spec.pipelines)
      report.pipelines[pipeline.key] = await this.ensurePipeline(pipeline, items);
    return report;
  }

  private call<T>(what: string, fn: () => Promise<T>): Promise<T> {
    return this.runner.run({ what, lane: 'general', idempotent: true }, fn);
  }

  // A create: not sent again blindly when its answer is lost (a group, a pipeline or a stage made
  // twice, or a 409 that fails setup); looked for with `find` first (madeOrFound).
  private create<T>(what: string, fn: () => Promise<T>, find: () => Promise<T | undefined>): Promise<T> {
    return madeOrFound(() => this.runner.run({ what, lane: 'general', idempotent: false }, fn), find);
  }

  private async ensureGroups(
    kind: CrmKind,
    spec: CrmSchemaSpec,
    items: CrmSchemaItemReport[],
  ): Promise<void> {
    const type = HUBSPOT_OBJECT[kind];
    const names = new Set((await this.groups(kind)).map((g) => g.name));
    for (const group of spec.groups.filter((g) => g.kind === kind)) {
      const item = `property group ${kind}.${group.name}`;
      if (names.has(group.name)) {
        items.push({ item, outcome: 'already present' });
        continue;
      }
      await this.create(
        `create ${item}`,
        () => this.client.crm.properties.groupsApi.create(type, { name: group.name, label: group.label }),
        async () => (await this.groups(kind)).find((g) => g.name === group.name),
      );
      items.push({ item, outcome: 'created' });
    }
  }

  private async ensureProperties(
    kind: CrmKind,
    specs: CrmPropertySpec[],
    items: CrmSchemaItemReport[],
  ): Promise<void> {
    const type = HUBSPOT_OBJECT[kind];
    const byName = new Map((await this.properties(kind)).map((p) => [p.name, p]));
    const created = await this.createProperties(
      kind,
      specs.filter((spec) => !byName.has(spec.name)).map(toPropertyCreate),
    );
    for (const spec of specs) {
      const item = `property ${kind}.${spec.name}`;
      const wanted = toPropertyCreate(spec);
      const found = byName.get(spec.name);
      if (!found) {
        if (!created.has(spec.name))
          await this.create(
            `create ${item}`,
            () => this.client.crm.properties.coreApi.create(type, wanted),
            async () => (await this.properties(kind)).find((p) => p.name === spec.name),
          );
        items.push({ item, outcome: 'created' });
        continue;
      }
      if (
        found.type !== String(wanted.type) ||
        Boolean(found.hasUniqueValue) !== Boolean(wanted.hasUniqueValue)
      ) {
        throw new CrmError(
          'CONFLICT',
          `${item} exists as type ${found.type}${found.hasUniqueValue ? ' (unique)' : ''}; setup-crm needs ${wanted.type}${wanted.hasUniqueValue ? ' (unique)' : ''}. Rename or delete it in HubSpot, then run setup-crm again.`,
          { fields: [spec.name] },
        );
      }
      const missingOptions = (wanted.options ?? []).filter(
        (o) => !found.options.some((f) => f.value === o.value),
      );
      if (missingOptions.length === 0) {
        items.push({ item, outcome: 'already present' });
        continue;
      }
      await this.call(`update ${item}`, () =>
        this.client.crm.properties.coreApi.update(type, spec.name, {
          options: [...optionsOf(found), ...missingOptions],
        }),
      );
      items.push({
        item,
        outcome: 'updated',
        detail: `added options ${missingOptions.map((o) => o.value).join(', ')}`,
      });
    }
  }

  // The missing properties in batches (one call per hundred, where one each would spend a new
  // portal's whole burst budget on setup). Returns the names the batches made; an input a batch
  // refused (a 207's errors, or the whole batch refused) is left to the single create, whose error
  // names the property.
  private async createProperties(kind: CrmKind, wanted: PropertyCreate[]): Promise<Set<string>> {
    const type = HUBSPOT_OBJECT[kind];
    const made = new Set<string>();
    for (let start = 0; start < wanted.length; start += PROPERTY_BATCH) {
      const inputs = wanted.slice(start, start + PROPERTY_BATCH);
      try {
        const answer = await this.runner.run(
          { what: `create ${inputs.length} ${kind} properties`, lane: 'general', idempotent: false },
          () => this.client.crm.properties.batchApi.create(type, { inputs }),
        );
        for (const property of answer.results) made.add(property.name);
      } catch (error) {
        // Its answer lost: those now listed were made; the rest go to the single create.
        if (error instanceof CrmError && error.code === 'OUTCOME_UNKNOWN') {
          const listed = new Set((await this.properties(kind)).map((p) => p.name));
          for (const input of inputs) if (listed.has(input.name)) made.add(input.name);
          continue;
        }
        if (!(error instanceof CrmError && REFUSED_INPUT.has(error.code))) throw error;
      }
    }
    return made;
  }

  private async groups(kind: CrmKind): Promise<PropertyGroup[]> {
    const type = HUBSPOT_OBJECT[kind];
    return (
      await this.call(`list ${kind} property groups`, () => this.client.crm.properties.groupsApi.getAll(type))
    ).results;
  }

  private async pipelines(kind: CrmKind): Promise<Pipeline[]> {
    const type = HUBSPOT_OBJECT[kind];
    return (
      await this.call(`list ${kind} pipelines`, () => this.client.crm.pipelines.pipelinesApi.getAll(type))
    ).results;
  }

  private async properties(kind: CrmKind): Promise<Property[]> {
    const type = HUBSPOT_OBJECT[kind];
    return (await this.call(`list ${kind} properties`, () => this.client.crm.properties.coreApi.getAll(type)))
      .results;
  }

  private async ensurePipeline(
    spec: CrmPipelineSpec,
    items: CrmSchemaItemReport[],
  ): Promise<{ id: string; stages: Record<string, string> }> {
    const type = HUBSPOT_OBJECT[spec.kind];
    const item = `pipeline ${spec.key}`;
    const all = await this.pipelines(spec.kind);
    const pipeline: Pipeline | undefined = all.find((p) => sameLabel(p.label, spec.label));
    if (!pipeline) {
      const created = await this.create(
        `create ${item}`,
        () =>
          this.client.crm.pipelines.pipelinesApi.create(type, {
            label: spec.label,
            displayOrder: all.length,
            stages: spec.stages.map((s, i) => stageInput(s, i)),
          }),
        async () => (await this.pipelines(spec.kind)).find((p) => sameLabel(p.label, spec.label)),
      );
      items.push({ item, outcome: 'created' });
      for (const stage of spec.stages)
        items.push({ item: `stage ${spec.key}.${stage.key}`, outcome: 'created' });
      return { id: created.id, stages: stageIds(spec.stages, created) };
    }
    const current = pipeline;
    let changed = false;
    for (const [i, stage] of spec.stages.entries()) {
      const stageItem = `stage ${spec.key}.${stage.key}`;
      // An archived stage takes no records, so it does not count as present.
      if (current.stages.some((s) => !s.archived && sameLabel(s.label, stage.label))) {
        items.push({ item: stageItem, outcome: 'already present' });
        continue;
      }
      const created = await this.create(
        `create ${stageItem}`,
        () =>
          this.client.crm.pipelines.pipelineStagesApi.create(
            type,
            current.id,
            stageInput(stage, current.stages.length + i),
          ),
        async () =>
          (
            await this.call(`read ${item}`, () =>
              this.client.crm.pipelines.pipelinesApi.getById(type, current.id),
            )
          ).stages.find((s) => !s.archived && sameLabel(s.label, stage.label)),
      );
      current.stages.push(created);
      changed = true;
      items.push({ item: stageItem, outcome: 'created' });
    }
    items.push({ item, outcome: changed ? 'updated' : 'already present' });
    return { id: current.id, stages: stageIds(spec.stages, current) };
  }
}

function toPropertyCreate(spec: CrmPropertySpec): PropertyCreate {
  const [type, fieldType] = TYPES[spec.type];
  const options = spec.type === 'bool' ? BOOL_OPTIONS : spec.options;
  return {
    name: spec.name,
    label: spec.label,
    type,
    fieldType,
    groupName: spec.group,
    ...(spec.description ? { description: spec.description } : {}),
    ...(options ? { options: options.map((o, i) => ({ ...o, hidden: false, displayOrder: i })) } : {}),
    ...(spec.unique ? { hasUniqueValue: true } : {}),
  };
}

function optionsOf(p: Property): { label: string; value: string; hidden: boolean; displayOrder?: number }[] {
  return p.options.map((o) => ({
    label: o.label,
    value: o.value,
    hidden: o.hidden,
    displayOrder: o.displayOrder,
  }));
}

// HubSpot deal stages need a win probability; closed stages are won (1.0) or lost (0.0).
function stageInput(stage: CrmStageSpec, displayOrder: number) {
  const probability = stage.closed === 'won' ? '1.0' : stage.closed === 'lost' ? '0.0' : '0.5';
  return {
    label: stage.label,
    displayOrder,
    metadata: { probability, isClosed: String(Boolean(stage.closed)) },
  };
}

function stageIds(specs: CrmStageSpec[], pipeline: Pipeline): Record<string, string> {
  const out: Record<string, string> = {};
  for (const spec of specs) {
    const found = pipeline.stages.find((s) => !s.archived && sameLabel(s.label, spec.label));
    if (found) out[spec.key] = found.id;
  }
  return out;
}

function sameLabel(a: string, b: string): boolean {
  return a.trim().toLowerCase() === b.trim().toLowerCase();
}

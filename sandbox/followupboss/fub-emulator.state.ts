import { customFieldName, customValue, parseFieldType } from './fub-emulator.fields';
import {
  badRequest,
  notFound,
  type CustomFieldDef,
  type StoredPipeline,
  type StoredRecord,
} from './fub-emulator.types';

export type Resource = 'people' | 'deals' | 'notes' | 'tasks';
export type FieldsKind = 'people' | 'deals';
export type ChangeAction = 'created' | 'updated' | 'deleted';
export type ChangeListener = (
  resource: Resource,
  action: ChangeAction,
  record: StoredRecord,
  before?: Record<string, unknown>,
) => void;

// FUB shows times with second precision (`2012-04-23T02:23:11Z`, crm-apis.md B1).
export const fubTime = (ms: number): string =>
  new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');

const RECORD_NAMES: Record<Resource, string> = {
  people: 'Person',
  deals: 'Deal',
  notes: 'Note',
  tasks: 'Task',
};

// One emulated FUB account: people, deals, notes, tasks, pipelines and custom fields.
export class FubState {
  readonly records: Record<Resource, Map<number, StoredRecord>> = {
    people: new Map(),
    deals: new Map(),
    notes: new Map(),
    tasks: new Map(),
  };
  readonly customFields: Record<FieldsKind, Map<string, CustomFieldDef>> = {
    people: new Map(),
    deals: new Map(),
  };
  readonly pipelines = new Map<number, StoredPipeline>();
  private nextId = { record: 1, field: 1, pipeline: 1, stage: 1 };
  // The emulator's clock; tests move it forward through the control API.
  offsetMs = 0;
  // Told of every create and update (the webhook dispatcher listens).
  onChange: ChangeListener | undefined;

  constructor() {
    this.reset();
  }

  now(): number {
    return Date.now() + this.offsetMs;
  }

  // A new account has FUB's two default deal pipelines (the stage names are the emulator's own).
  reset(): void {
    for (const map of Object.values(this.records)) map.clear();
    for (const map of Object.values(this.customFields)) map.clear();
    this.pipelines.clear();
    this.nextId = { record: 1, field: 1, pipeline: 1, stage: 1 };
    this.offsetMs = 0;
    this.createPipeline({ name: 'Buyers', stages: ['Lead', 'Showing', 'Offer', 'Under Contract', 'Closed'] });
    this.createPipeline({
      name: 'Sellers',
      stages: [
        'Lead',
        'Listing Appointment',
        'Request Cash Offer',
        'Active Listing',
        'Under Contract',
        'Closed',
      ],
    });
  }

  createPipeline(input: { name: string; stages: string[] }): StoredPipeline {
    const pipeline: StoredPipeline = {
      id: this.nextId.pipeline++,
      name: input.name,
      description: '',
      orderWeight: this.pipelines.size * 1000 + 1000,
      stages: input.stages.map((name, i) => ({ id: this.nextId.stage++, name, orderWeight: (i + 1) * 1000 })),
    };
    this.pipelines.set(pipeline.id, pipeline);
    return pipeline;
  }

  updatePipeline(
    id: number,
    input: { name?: string; stages?: { id?: number; name: string }[] },
  ): StoredPipeline {
    const pipeline = this.pipelines.get(id);
    if (!pipeline) throw notFound(`Pipeline ${id}`);
    if (input.name !== undefined) pipeline.name = input.name;
    if (input.stages) {
      pipeline.stages = input.stages.map((s, i) => {
        const known = s.id !== undefined ? pipeline.stages.find((p) => p.id === s.id) : undefined;
        if (s.id !== undefined && !known) throw badRequest(`stage ${s.id} is not in pipeline ${id}`);
        return { id: known?.id ?? this.nextId.stage++, name: s.name, orderWeight: (i + 1) * 1000 };
      });
    }
    return pipeline;
  }

  stage(stageId: number): { pipelineId: number; name: string } | undefined {
    for (const p of this.pipelines.values()) {
      const s = p.stages.find((x) => x.id === stageId);
      if (s) return { pipelineId: p.id, name: s.name };
    }
    return undefined;
  }

  createField(kind: FieldsKind, body: Record<string, unknown>): CustomFieldDef {
    const label = typeof body.label === 'string' ? body.label.trim() : '';
    if (!label) throw badRequest('label is required');
    const type = parseFieldType(body.type);
    const name = customFieldName(label);
    if (this.customFields[kind].has(name)) throw badRequest(`A custom field named ${name} already exists`);
    const choices = Array.isArray(body.choices) ? body.choices.map(String) : [];
    if (type === 'dropdown' && choices.length === 0) throw badRequest('choices are required for a dropdown');
    const def: CustomFieldDef = {
      id: this.nextId.field++,
      name,
      label,
      type,
      choices,
      orderWeight: this.customFields[kind].size * 1000 + 1000,
      hideIfEmpty: false,
      readOnly: false,
    };
    this.customFields[kind].set(name, def);
    return def;
  }

  // Applies custom fields of a write; an unknown customXxx is a 400, as FUB names it.
  customPart(kind: FieldsKind, body: Record<string, unknown>): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(body)) {
      if (!/^custom[A-Z]/.test(key)) continue;
      const def = this.customFields[kind].get(key);
      if (!def) throw badRequest(`Invalid custom field: ${key}`);
      out[key] = customValue(def, value);
    }
    return out;
  }

  create(resource: Resource, fields: Record<string, unknown>): StoredRecord {
    const at = fubTime(this.now());
    const record: StoredRecord = { id: this.nextId.record++, created: at, updated: at, fields };
    this.records[resource].set(record.id, record);
    this.onChange?.(resource, 'created', record);
    return record;
  }

  update(resource: Resource, id: number, fields: Record<string, unknown>): StoredRecord {
    const record = this.get(resource, id);
    const before = { ...record.fields };
    Object.assign(record.fields, fields);
    record.updated = fubTime(this.now());
    this.onChange?.(resource, 'updated', record, before);
    return record;
  }

  // A deleted deal stays, with status Deleted, as FUB keeps it (its deal list filters `status` and
  // `includeDeleted`); a deleted person or task is forgotten (FUB moves a person to the Trash, which
  // the emulator does not have), so reading it again is a 404.
  remove(resource: 'people' | 'deals' | 'tasks', id: number): void {
    const record = this.get(resource, id);
    if (resource === 'tasks') {
      this.records.tasks.delete(id);
    } else if (resource === 'deals') {
      if (record.fields.status === 'Deleted') throw notFound(`Deal ${id}`);
      record.fields.status = 'Deleted';
      record.updated = fubTime(this.now());
    } else {
      this.records.people.delete(id);
    }
    this.onChange?.(resource, 'deleted', record);
  }

  get(resource: Resource, id: number): StoredRecord {
    const record = this.records[resource].get(id);
    if (!record) throw notFound(`${RECORD_NAMES[resource]} ${id}`);
    return record;
  }
}

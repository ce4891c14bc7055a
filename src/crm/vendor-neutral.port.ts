import { CrmAdapter, CrmPort, type CrmAccessReport, type CrmChangeSubscriptionReport } from './crm.port';
import { isCrmRole, type CrmRole, type CrmVendorProfile } from './crm-roles';
import type {
  CrmAssociationPair,
  CrmAssociationResult,
  CrmChangeFilter,
  CrmChangePage,
  CrmKind,
  CrmNoteInput,
  CrmPipeline,
  CrmProperties,
  CrmPropertyLookup,
  CrmRecord,
  CrmRecordRef,
  CrmStageChange,
  CrmTask,
  CrmTaskInput,
  CrmUpdateInput,
  CrmUpsertInput,
  CrmWriteResult,
  ReadChangesOptions,
} from './crm.types';
import type { CrmSchemaReport, CrmSchemaSpec } from './crm-schema.types';

// The port as flows see it: role names (crm:name, crm:amount) in, vendor fields out, and every
// value read back in the port's form. Wraps any adapter, so adapters stay plain vendor drivers
// and the translation is written once.
export class VendorNeutralCrmPort extends CrmPort {
  constructor(
    readonly inner: CrmAdapter,
    private readonly profile: CrmVendorProfile,
  ) {
    super();
  }

  get changeOverlapMs(): number {
    return this.inner.changeOverlapMs;
  }

  async *readChanges(options: ReadChangesOptions): AsyncIterable<CrmChangePage> {
    const { kind } = options;
    const pages = this.inner.readChanges({
      ...options,
      properties: this.names(kind, options.properties),
      ...(options.filter ? { filter: this.filter(kind, options.filter) } : {}),
    });
    for await (const page of pages) {
      yield { ...page, records: page.records.map((r) => this.record(r, options.properties)) };
    }
  }

  async getRecords(
    kind: CrmKind,
    ids: string[],
    properties: string[],
    withAssociations?: CrmKind[],
  ): Promise<CrmRecord[]> {
    const records = await this.inner.getRecords(kind, ids, this.names(kind, properties), withAssociations);
    return records.map((r) => this.record(r, properties));
  }

  async findByUniqueValues(
    kind: CrmKind,
    uniqueProperty: string,
    values: string[],
    properties: string[],
  ): Promise<CrmRecord[]> {
    const records = await this.inner.findByUniqueValues(
      kind,
      this.name(kind, uniqueProperty),
      values,
      this.names(kind, properties),
    );
    return records.map((r) => this.record(r, properties));
  }

  upsertRecords(kind: CrmKind, uniqueProperty: string, inputs: CrmUpsertInput[]): Promise<CrmWriteResult[]> {
    return this.inner.upsertRecords(
      kind,
      this.name(kind, uniqueProperty),
      inputs.map((i) => ({ ...i, properties: this.properties(kind, i.properties) })),
    );
  }

  updateRecords(kind: CrmKind, inputs: CrmUpdateInput[]): Promise<CrmWriteResult[]> {
    return this.inner.updateRecords(
      kind,
      inputs.map((i) => ({ ...i, properties: this.properties(kind, i.properties) })),
    );
  }

  associate(pairs: CrmAssociationPair[]): Promise<CrmAssociationResult[]> {
    return this.inner.associate(pairs);
  }

  addNote(note: CrmNoteInput): Promise<{ id: string }> {
    return this.inner.addNote(note);
  }

  // Tasks carry no vendor field names: passed through as they are.
  createTask(task: CrmTaskInput): Promise<{ id: string }> {
    return this.inner.createTask(task);
  }

  findTasks(about: CrmRecordRef): Promise<CrmTask[]> {
    return this.inner.findTasks(about);
  }

  completeTask(id: string): Promise<void> {
    return this.inner.completeTask(id);
  }

  listPipelines(kind: CrmKind): Promise<CrmPipeline[]> {
    return this.inner.listPipelines(kind);
  }

  ensureSchema(spec: CrmSchemaSpec): Promise<CrmSchemaReport> {
    return this.inner.ensureSchema(spec);
  }
  override checkAccess(): Promise<CrmAccessReport> {
    return this.inner.checkAccess();
  }
  override findProperty(kind: CrmKind, name: string): Promise<CrmPropertyLookup | undefined> {
    return this.inner.findProperty(kind, this.name(kind, name));
  }
  override stageHistory(ids: string[]): Promise<Map<string, CrmStageChange[]> | undefined> {
    return this.inner.stageHistory(ids);
  }
  override subscribeToChanges(url: string): Promise<CrmChangeSubscriptionReport> {
    return this.inner.subscribeToChanges(url);
  }

  private name(kind: CrmKind, name: string): string {
    if (!isCrmRole(name)) return name;
    const vendor = this.profile.roles[kind]?.[name];
    if (!vendor) throw new Error(`a ${kind} in this CRM has no field for the role ${name}`);
    return vendor;
  }

  private names(kind: CrmKind, names: string[]): string[] {
    return [...new Set(names.map((n) => this.name(kind, n)))];
  }

  private properties(kind: CrmKind, properties: CrmProperties): CrmProperties {
    const out: CrmProperties = {};
    for (const [name, value] of Object.entries(properties)) out[this.name(kind, name)] = value;
    return out;
  }

  private filter(kind: CrmKind, filter: CrmChangeFilter): CrmChangeFilter {
    return {
      ...filter,
      ...(filter.propertyEquals ? { propertyEquals: this.properties(kind, filter.propertyEquals) } : {}),
      ...(filter.propertyHasValue ? { propertyHasValue: this.names(kind, filter.propertyHasValue) } : {}),
    } as CrmChangeFilter;
  }

  // Values in the port's form, plus each requested role under its role name.
  private record(record: CrmRecord, requested: string[]): CrmRecord {
    const { kind } = record;
    const properties: CrmProperties = {};
    for (const [name, value] of Object.entries(record.properties)) {
      properties[name] = this.profile.readValue ? this.profile.readValue(kind, name, value) : value;
    }
    for (const role of requested.filter((n): n is CrmRole => isCrmRole(n))) {
      const vendor = this.profile.roles[kind]?.[role];
      if (vendor) properties[role] = properties[vendor] ?? null;
    }
    return { ...record, properties };
  }
}

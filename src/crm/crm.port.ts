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
  CrmStageChange,
  CrmTask,
  CrmTaskInput,
  CrmUpdateInput,
  CrmUpsertInput,
  CrmWriteResult,
  ReadChangesOptions,
} from './crm.types';
import type { CrmSchemaReport, CrmSchemaSpec } from './crm-schema.types';

// Permissions the CRM account lacks, named in the CRM's words (HubSpot scopes).
export interface CrmAccessReport {
  checked: boolean;
  missing: string[];
  // Why the check could not be made, or what else is wrong with the credentials.
  problem?: string;
}

// What asking the CRM to notify the daemon of changes did: one item per notification kind (for
// Follow Up Boss, one webhook per event). `supported: false` when the CRM or adapter cannot.
export interface CrmChangeSubscriptionReport {
  supported: boolean;
  items: { item: string; outcome: 'created' | 'updated' | 'already present' }[];
}

// What a CRM connection can do, whoever speaks it: a vendor adapter in the CRM's own field names,
// or the port the flows use in role names (below). Every batch operation answers per record: one
// bad record never fails the others.
export abstract class CrmOperations {
  // Records changed since the cursor, oldest first, in (updatedAt, id) order. Records inside the
  // adapter's overlap window are read again on purpose; callers skip unchanged ones by hash.
  abstract readChanges(options: ReadChangesOptions): AsyncIterable<CrmChangePage>;

  // How far before its cursor readChanges starts reading again (that overlap window), so one read
  // shared by several cursors can give each the records its own read would have given.
  abstract readonly changeOverlapMs: number;

  abstract getRecords(
    kind: CrmKind,
    ids: string[],
    properties: string[],
    withAssociations?: CrmKind[],
  ): Promise<CrmRecord[]>;

  // Records whose unique-value property holds one of `values` (a read, not a search: it sees a
  // record the moment it is written). Values no record holds are simply absent from the answer.
  abstract findByUniqueValues(
    kind: CrmKind,
    uniqueProperty: string,
    values: string[],
    properties: string[],
  ): Promise<CrmRecord[]>;

  // Create or update by a unique-value property, so a retried write never makes a second record.
  abstract upsertRecords(
    kind: CrmKind,
    uniqueProperty: string,
    inputs: CrmUpsertInput[],
  ): Promise<CrmWriteResult[]>;

  abstract updateRecords(kind: CrmKind, inputs: CrmUpdateInput[]): Promise<CrmWriteResult[]>;

  abstract associate(pairs: CrmAssociationPair[]): Promise<CrmAssociationResult[]>;

  abstract addNote(note: CrmNoteInput): Promise<{ id: string }>;

  // A task for an agent. Not idempotent by itself: after a write whose answer was lost, findTasks
  // shows whether the task was made (its key is read back).
  abstract createTask(task: CrmTaskInput): Promise<{ id: string }>;

  // The tasks on a record, each with the key it was made with (null for others). A deleted record
  // has none.
  abstract findTasks(about: CrmRecordRef): Promise<CrmTask[]>;

  // Idempotent: a task already completed, or deleted, is fine.
  abstract completeTask(id: string): Promise<void>;

  abstract listPipelines(kind: CrmKind): Promise<CrmPipeline[]>;

  // Idempotent: creates what is missing, reports what it found.
  abstract ensureSchema(spec: CrmSchemaSpec): Promise<CrmSchemaReport>;

  // Whether the account lets this token do what the flows need (validate-config --online).
  // Adapters that cannot tell say so with checked: false.
  checkAccess(): Promise<CrmAccessReport> {
    return Promise.resolve({ checked: false, missing: [] });
  }

  // Whether records of `kind` have the property `name` (validate-config --online). Adapters that
  // cannot tell answer undefined. A failed read throws, so it is never taken for a missing property.
  findProperty(_kind: CrmKind, _name: string): Promise<CrmPropertyLookup | undefined> {
    return Promise.resolve(undefined);
  }

  // Each deal's stage changes, newest first, where the CRM keeps a property history (undefined where
  // it does not). Neither CRM offers a conditional write; this is how a writer learns, after the fact,
  // that its move went over one made a moment before it (HeldStages.putBackOverwritten). Records that
  // do not exist are absent.
  stageHistory(_ids: string[]): Promise<Map<string, CrmStageChange[]> | undefined> {
    return Promise.resolve(undefined);
  }

  // Idempotent: asks the CRM to POST to `url` when records change, so the change reader can run
  // early. Only a hint: the change reader stays the source of truth.
  subscribeToChanges(_url: string): Promise<CrmChangeSubscriptionReport> {
    return Promise.resolve({ supported: false, items: [] });
  }
}

// The one way flows talk to a CRM: role names (crm:name, crm:amount) in, values in the port's form
// out (VendorNeutralCrmPort over an adapter). An abstract class so it can be a Nest injection token.
// The private brand keeps it apart from a vendor adapter for the compiler: both have the same
// methods, and a flow handed an adapter would write role names the CRM does not know.
export abstract class CrmPort extends CrmOperations {
  declare private readonly speaks: 'role names';
}

// A vendor driver (HubSpot, Follow Up Boss): fields in the CRM's own names. Flows never get one:
// CrmPortFactory wraps it in a VendorNeutralCrmPort.
export abstract class CrmAdapter extends CrmOperations {
  declare private readonly speaks: 'vendor fields';
}

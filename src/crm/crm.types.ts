import type { CrmError } from './crm.error';

// The daemon's own words for CRM data. Flows see only these shapes, never a vendor's.
export type CrmKind = 'deal' | 'contact';

export type CrmProperties = Record<string, string | null>;

// Composite cursor: many records can share one modification time, so the id breaks ties.
export interface CrmCursor {
  updatedAt: string;
  id: string;
}

export interface CrmAssociations {
  deal?: string[];
  contact?: string[];
}

export interface CrmRecord {
  id: string;
  kind: CrmKind;
  properties: CrmProperties;
  pipelineId?: string;
  stageId?: string;
  updatedAt: string;
  createdAt?: string;
  associations?: CrmAssociations;
}

export interface CrmChangeFilter {
  pipelineId?: string;
  stageIds?: string[];
  propertyEquals?: Record<string, string>;
  propertyHasValue?: string[];
}

export interface ReadChangesOptions {
  kind: CrmKind;
  since: CrmCursor | null;
  properties: string[];
  filter?: CrmChangeFilter;
  withAssociations?: CrmKind[];
  pageSize?: number;
}

export interface CrmChangePage {
  records: CrmRecord[];
  // Position after the last record of this page; persist it once the page is processed.
  cursor: CrmCursor;
}

// Moving a record to a stage is said in the port's words; adapters map it to their fields.
export interface CrmPlacement {
  pipelineId?: string;
  stageId?: string;
  // The stage moves a record an agent may be moving at the same moment: a write whose answer was
  // lost is not sent again with it (it would put back a move made in between), but fails for the
  // caller, which looks at the record again before it writes again.
  moveSentOnce?: boolean;
}

export interface CrmUpsertInput extends CrmPlacement {
  key: string;
  // null clears a value.
  properties: CrmProperties;
  // The stage is the new record's first one, for the CRM to show until someone moves it: a write
  // whose answer was lost is not sent again with it (the agent may have moved the record since), but
  // fails as OUTCOME_UNKNOWN for the caller to look before it writes again.
  stageOnCreateOnly?: boolean;
}

// One change of a deal's stage, as the CRM's property history keeps it.
export interface CrmStageChange {
  stageId: string;
  // ISO 8601, the CRM's clock.
  at: string;
}

export interface CrmUpdateInput extends CrmPlacement {
  id: string;
  properties: CrmProperties;
}

export type CrmWriteResult =
  { key: string; ok: true; id: string; created: boolean } | { key: string; ok: false; error: CrmError };

export interface CrmRecordRef {
  kind: CrmKind;
  id: string;
}

export interface CrmAssociationPair {
  from: CrmRecordRef;
  to: CrmRecordRef;
}

export type CrmAssociationResult =
  { pair: CrmAssociationPair; ok: true } | { pair: CrmAssociationPair; ok: false; error: CrmError };

export interface CrmNoteInput {
  body: string;
  attachTo: CrmRecordRef[];
  timestamp?: Date;
}

// A to-do for a CRM user (an agent), about one record: "Offer 7012 from Jane Buyer expires Thu 14:00".
export interface CrmTaskInput {
  // The daemon's idempotency key (`offer:7012:lead:24h`), stored on the task so that a task made by a
  // write whose answer was lost is found again (crm-task-key.ts says which keys fit).
  key: string;
  // The record the task is about. A CRM whose tasks hang on people puts it on the deal's person.
  about: CrmRecordRef;
  subject: string;
  // Dropped by a CRM whose tasks have no text besides their title (Follow Up Boss).
  body: string;
  dueAt: Date;
  // The CRM user to assign (HubSpot owner id, Follow Up Boss user id); absent: the CRM's default.
  ownerId?: string;
  // Without ownerId: assign the task to whoever owns this record in the CRM's own sense (HubSpot: the
  // record's hubspot_owner_id; a record with no owner leaves the task unassigned). Follow Up Boss
  // assigns every task to the agent of the person it hangs on, and ignores this.
  ownerOf?: CrmRecordRef;
  // Called right before the create request leaves (after the rate limiter): the outbox marks its
  // command `sending` there, so a drain that lost the command while it waited never sends it.
  beforeSend?: () => Promise<void>;
  // Called when a create request did nothing and the task goes again (a 429 waited out, an owner
  // the CRM refused): the outbox takes its command back to `pending` until the next beforeSend.
  refusedBeforeRetry?: (refusal: string) => Promise<void>;
}

export interface CrmTask {
  id: string;
  // The key it was made with; null for a task someone else made.
  key: string | null;
  completed: boolean;
  dueAt: Date | null;
  // Without the key.
  subject: string;
}

export interface CrmStage {
  id: string;
  label: string;
}

export interface CrmPipeline {
  id: string;
  label: string;
  stages: CrmStage[];
}

// One property of a record kind, in the CRM's own name and label.
export interface CrmPropertyInfo {
  name: string;
  label: string;
}

// Whether a record kind has a property, asked of the CRM itself (validate-config --online).
export interface CrmPropertyLookup {
  // The name the CRM gives it (Follow Up Boss: customXxx for a snake_case custom name).
  crmName: string;
  exists: boolean;
  // The properties the account itself added to the kind (not the CRM's own), in the CRM's order:
  // the ones an operator most likely meant.
  custom: CrmPropertyInfo[];
}
